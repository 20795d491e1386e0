#!/usr/bin/env bash
# Build llama.cpp's own HTTP server (tools/server of the llama.cpp inside llama-cpp-python), for the tests that
# count tokens against a real llama-server, into ~/.cache/lclab/bin/llama-server-<version>/. Idempotent.
#
#   scripts/build_llama_server.sh           build it if it is not built (~70 s on 2 cores from the tree the
#                                           wheel's build kept; from the source llama.cpp compiles again)
#   scripts/build_llama_server.sh --built   only say (exit status) whether it is built
#
# ./run_tests.sh runs it beside the tests at the lowest priority; scripts/setup.sh --llama-server runs it at once.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/llama_cpp.sh

[ -x "$SERVER_DIR/llama-server" ] && compiled_with_these "$SERVER_FLAGS" && exit 0
[ "${1:-}" = "--built" ] && exit 1
PY=.venv/bin/python
llama_source "$PY"
# The tools folder brings its own mtmd (LLAVA_BUILD off: the wheel's would be a second copy), and llama.cpp's
# common library, which the wheel left out, is compiled now (the wheel's include is dropped); both, and the
# server's own code, unoptimized (-O0) and as unity builds (scripts/cmake/server_tools_quick_build.cmake). The
# server's web page is left out, and the binary finds its libraries beside it ($ORIGIN). An interrupted build
# resumes here.
# shellcheck disable=SC2086  # the flags are words
cmake -S "$TREE/src" -B "$TREE/build" $CMAKE_FLAGS -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAVA_BUILD=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DCMAKE_BUILD_RPATH='$ORIGIN' -UCMAKE_PROJECT_llama.cpp_INCLUDE \
  -DCMAKE_PROJECT_INCLUDE="$PWD/scripts/cmake/server_tools_quick_build.cmake" > "$TREE/cmake.log" 2>&1 \
  || { tail -n 40 "$TREE/cmake.log" >&2; exit 1; }
cmake --build "$TREE/build" --target llama-server -j "$(nproc)" > "$TREE/build.log" 2>&1 \
  || { tail -n 40 "$TREE/build.log" >&2; exit 1; }
built=$(dirname "$(find "$TREE/build" -name llama-server -type f -perm -u+x | head -n1)")
# Copied to a temporary folder and moved in one step: a stopped copy never looks like a finished server.
rm -rf "$SERVER_DIR.partial" && mkdir -p "$SERVER_DIR.partial"
cp -P "$built"/llama-server "$built"/lib*.so* "$SERVER_DIR.partial"/
echo "$CMAKE_FLAGS" > "$SERVER_DIR.partial/cmake.flags"
rm -rf "$SERVER_DIR" && mv "$SERVER_DIR.partial" "$SERVER_DIR"
rm -rf "$TREE" "$SERVER_LOG.pid"
echo "llama-server: $SERVER_DIR/llama-server"
