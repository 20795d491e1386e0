# Sourced by scripts/setup.sh and scripts/build_llama_server.sh: which llama.cpp, where its builds go, and how it
# is compiled.
#
# llama.cpp is compiled once per machine into a wheel kept outside the repo, so fresh clones reuse it. The flags
# are explicit, not -march=native: on these Xeons a native build (AVX-512 + AMX) segfaults in batched decoding,
# and an AVX2 build runs on any x86-64 CPU of the last decade. Override for CUDA, Metal or a native build with
# LCLAB_LLAMA_CMAKE_ARGS (and a fresh LCLAB_WHEEL_DIR).
LLAMA_VERSION=0.3.36
WHEELS=${LCLAB_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lclab/wheels}
SERVER_DIR="$WHEELS/../bin/llama-server-$LLAMA_VERSION"
# The wheel's source and build tree, kept after the wheel only when llama-server is to be built from it (ggml and
# llama are then compiled once for both), and removed once the server is built.
TREE="$WHEELS/../build/llama-cpp-python-$LLAMA_VERSION"
SERVER_LOG="$WHEELS/../build/llama-server-$LLAMA_VERSION.log"
CMAKE_FLAGS=${LCLAB_LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF}

# The llama-cpp-python source, unpacked into $TREE/src (a kept tree is reused as it is).
llama_source() {
  [ -f "$TREE/src/CMakeLists.txt" ] && return 0
  rm -rf "$TREE" && mkdir -p "$TREE/src"
  "$1" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "llama-cpp-python==$LLAMA_VERSION" -d "$TREE"
  tar xzf "$TREE"/llama_cpp_python-*.tar.gz -C "$TREE/src" --strip-components=1
}
