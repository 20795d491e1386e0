#!/usr/bin/env bash
# Set up (as ./run_all.sh does, with only the small 0.5B model) and run the test suite.
# Extra arguments go to pytest, e.g. ./run_tests.sh -k cache -x
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --llama-server qwen2.5-coder-0.5b
exec .venv/bin/python -m pytest "$@"
