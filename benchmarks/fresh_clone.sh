#!/usr/bin/env bash
# What a new user waits for: clone this repo into a temporary folder with an empty home folder (no pip cache, no
# llama.cpp wheel, no model), then time the README's plan and test commands as a user types them. Prints the plan,
# set-up, quick and model tests' and total times and pytest's slowest tests; the clone is left for inspection.
#
#   benchmarks/fresh_clone.sh [PYTEST_ARGS ...]     e.g. benchmarks/fresh_clone.sh -x
source "$(dirname "$0")/fresh_home.sh"
start=$(date +%s)
./run_all.sh --plan > "$work/plan.log" 2>&1; plan_rc=$?
planned=$(date +%s)
./run_tests.sh -q --durations=${DURATIONS:-25} "$@" > "$work/tests.log" 2>&1; tests_rc=$?
done_at=$(date +%s)
echo "clone: $work/clone (logs: $work/plan.log, $work/tests.log)"
echo "plan:  $((planned - start)) s (exit $plan_rc)"
echo "tests: $((done_at - planned)) s with set-up (exit $tests_rc): $(grep -E '^[0-9]+ (passed|failed)|passed' "$work/tests.log" | tail -n 1)"
grep -E '^set-up: ' "$work/tests.log"
grep -E '^test time ' "$work/tests.log"
echo "total: $((done_at - start)) s"
sed -n '/slowest/,/^=/p' "$work/tests.log"
summary=$(grep -E '[0-9]+ passed' "$work/tests.log" | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
setup_s=$(grep -oE '^set-up: [0-9]+' "$work/tests.log" | grep -oE '[0-9]+$')
python3 "$repo/benchmarks/measured_rows.py" test_suite home=empty plan_s=$((planned - start)) setup_s="$setup_s" \
    pytest_s=$((done_at - planned - ${setup_s:-0})) run_tests_s=$((done_at - planned)) passed="$(count passed)" \
    failed="$(count failed)" skipped="$(count skipped)" note="benchmarks/fresh_clone.sh $*"
