#!/usr/bin/env bash
# Line coverage of lib/lclab under the README's test command: ./run_tests.sh with pytest-cov, the notebooks'
# kernels and every subprocess measured too (pyproject.toml's [tool.coverage]). Prints coverage's report and
# its TOTAL line (the number to compare before and after a change to the tests).
#
#   benchmarks/coverage.sh [PYTEST_ARGS ...]
set -uo pipefail
cd "$(dirname "$0")/.."
rm -rf .cache/coverage && mkdir -p .cache/coverage
./run_tests.sh -p no:cacheprovider --cov --cov-report= "$@"; rc=$?
.venv/bin/python -m coverage combine -q --keep .cache/coverage 2>/dev/null || true
.venv/bin/python -m coverage report --skip-covered --sort=cover | tail -n 40
echo "pytest exit $rc"
exit $rc
