#!/usr/bin/env bash
# Set up (as ./run_all.sh does, with only the small 0.5B model) and run the test suite.
# Extra arguments go to pytest, e.g. ./run_tests.sh -k cache -x
set -euo pipefail
cd "$(dirname "$0")"
source scripts/bytecode.sh
scripts/setup.sh --llama-server-later qwen2.5-coder-0.5b
# llama.cpp's own server, for the few tests that count tokens against a real llama-server, compiles beside the
# tests at the lowest priority (on the core they leave idle, minutes of it on a fresh machine); those tests run
# last and wait for it (tests/conftest.py). Set-up starts it as soon as the llama.cpp wheel exists (its process
# group in $SERVER_LOG.pid); otherwise it starts here. A stopped build resumes where it was next time.
if ! scripts/build_llama_server.sh --built; then
  source scripts/llama_cpp.sh
  server_build_running || start_server_build
  export LCLAB_LLAMA_SERVER_BUILD=$(cat "$SERVER_LOG.pid") LCLAB_LLAMA_SERVER_LOG=$SERVER_LOG
  trap 'kill -- -"$LCLAB_LLAMA_SERVER_BUILD" 2>/dev/null || true' EXIT
fi
# Debian's Chromium for the explorer's browser tests installs beside the quick tests (they wait for it).
browser=$(scripts/browser.sh --background)
[ -n "$browser" ] && export LCLAB_BROWSER_INSTALL=$browser
# One pytest worker per core, up to 4 (pytest-xdist; LCLAB_TEST_WORKERS=0 runs in one process): each computes on
# its share of the cores (tests/conftest.py), so one test's Python overlaps another's model calls. A module's
# tests go to one worker (conftest's scheduler), in the order conftest gives them (--no-loadscope-reorder).
echo "set-up: ${SECONDS} s before the tests start"
workers=${LCLAB_TEST_WORKERS:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}
.venv/bin/python -m pytest -n "$workers" --dist loadscope --no-loadscope-reorder "$@"
