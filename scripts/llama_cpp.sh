# Sourced by scripts/setup.sh and scripts/build_llama_server.sh: which llama.cpp, where its builds go, and how it
# is compiled.
#
# llama.cpp is compiled once per machine into a wheel kept outside the repo, so fresh clones reuse it. The flags
# are explicit, not -march=native: on these Xeons a native build (AVX-512 + AMX) segfaults in batched decoding.
# A CPU with AVX-512's integer dot products (VNNI) gets an AVX-512 build without AMX, every other x86-64 CPU an
# AVX2 build (any of the last decade): on a 2-core Xeon (Sapphire Rapids) the 0.5B read a 512-token prompt at
# 126-127 tokens/s with AVX-512 against 83-85 with AVX2, and decoded at 25 against 23 (2026-11-29). Override for
# CUDA, Metal or a native build with LCLAB_LLAMA_CMAKE_ARGS; "$AVX2_FLAGS -DGGML_AVX512=OFF" there gives an AVX-512
# CPU the kernels of a CPU without it (a slower machine, benchmarks/fresh_run.sh). Kept builds with other flags are
# compiled again (below).
LLAMA_VERSION=0.3.36
WHEELS=${LCLAB_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lclab/wheels}
SERVER_DIR="$WHEELS/../bin/llama-server-$LLAMA_VERSION"
# The wheel's source and build tree, kept after the wheel only when llama-server is to be built from it (ggml and
# llama are then compiled once for both), and removed once the server is built.
TREE="$WHEELS/../build/llama-cpp-python-$LLAMA_VERSION"
SERVER_LOG="$WHEELS/../build/llama-server-$LLAMA_VERSION.log"
AVX2_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
cpu_flags() {
  local needed=(avx512f avx512bw avx512vl avx512_vnni) flag
  for flag in "${needed[@]}"; do
    grep -qw "$flag" /proc/cpuinfo 2>/dev/null || { echo "$AVX2_FLAGS -DGGML_AVX512=OFF"; return; }
  done
  echo "$AVX2_FLAGS -DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF"
}
CMAKE_FLAGS=${LCLAB_LLAMA_CMAKE_ARGS:-$(cpu_flags)}
# The flags the kept wheel and server were compiled with, beside them: a home folder moved to a CPU that wants
# other flags compiles again instead of running instructions that CPU may lack. A build from before the flags were
# kept was an AVX2 one.
WHEEL_FLAGS="$WHEELS/llama_cpp_python-$LLAMA_VERSION.flags"
SERVER_FLAGS="$SERVER_DIR/cmake.flags"
compiled_with_these() { [ "$(cat "$1" 2>/dev/null || echo "$AVX2_FLAGS -DGGML_AVX512=OFF")" = "$CMAKE_FLAGS" ]; }

# The llama-cpp-python source, unpacked into $TREE/src (a kept tree is reused as it is). pip reads the sdist's
# metadata in a build environment: --no-binary for this package only, so that environment's scikit-build-core
# comes as a wheel (with :all: pip built it and its own build tools from source first: 47 of a fresh clone's 218 s
# of set-up, both cores idle; 8 s now).
llama_source() {
  [ -f "$TREE/src/CMakeLists.txt" ] && return 0
  rm -rf "$TREE" && mkdir -p "$TREE/src"
  "$1" -m pip download -q --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
    "llama-cpp-python==$LLAMA_VERSION" -d "$TREE"
  tar xzf "$TREE"/llama_cpp_python-*.tar.gz -C "$TREE/src" --strip-components=1
}

# llama-server's build (scripts/build_llama_server.sh) in the background at the lowest priority, its process group
# id in $SERVER_LOG.pid. Its own process group (set -m) so that it can be stopped whole, but not its own session
# (setsid): the kernel shares the CPU between sessions first (autogroups), and nice would then not hold it back.
start_server_build() {
  mkdir -p "$(dirname "$SERVER_LOG")"
  set -m
  nice -n 19 scripts/build_llama_server.sh > "$SERVER_LOG" 2>&1 &
  set +m
  echo $! > "$SERVER_LOG.pid"
}

# Whether the build start_server_build started is still running (a pid left by a build that died with the machine
# may name another process now).
server_build_running() {
  local build
  build=$(cat "$SERVER_LOG.pid" 2>/dev/null) || return 1
  kill -0 -- -"$build" 2>/dev/null || return 1
  [ ! -r "/proc/$build/cmdline" ] || grep -q build_llama_server "/proc/$build/cmdline"
}
