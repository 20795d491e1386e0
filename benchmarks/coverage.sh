#!/usr/bin/env bash
# Line coverage of lib/lclab under the README's test command: ./run_tests.sh with pytest-cov, the notebooks'
# kernels and every subprocess measured too (pyproject.toml's [tool.coverage]). Prints coverage's report and
# its TOTAL line (the number to compare before and after a change to the tests).
#
#   benchmarks/coverage.sh [PYTEST_ARGS ...]
set -uo pipefail
cd "$(dirname "$0")/.."
rm -rf .cache/coverage && mkdir -p .cache/coverage
started=$(date +%s)
./run_tests.sh -p no:cacheprovider --cov --cov-report= "$@" | tee .cache/coverage/tests.log; rc=${PIPESTATUS[0]}
ended=$(date +%s)
.venv/bin/python -m coverage combine -q --keep .cache/coverage 2>/dev/null || true
.venv/bin/python -m coverage report --skip-covered --sort=cover | tail -n 40
echo "pytest exit $rc"
# the run as a row of docs/benchmarks.md (benchmarks/render_page.py writes the page again)
read -r statements missed covered < <(.venv/bin/python -m coverage report --precision=1 2>/dev/null |
    awk '/^TOTAL/ {sub("%", "", $NF); print $2, $3, $NF}')
summary=$(grep -E '[0-9]+ passed' .cache/coverage/tests.log | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
python3 benchmarks/measured_rows.py coverage statements="${statements:-}" missed="${missed:-}" covered_pct="${covered:-}" \
    passed="$(count passed)" failed="$(count failed)" skipped="$(count skipped)" pytest_s=$((ended - started)) \
    note="benchmarks/coverage.sh $*; ./run_tests.sh with set-up, exit $rc"
exit $rc
