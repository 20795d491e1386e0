#!/usr/bin/env bash
# A new user's first result: clone this repo into a temporary folder with an empty home folder (no pip cache, no
# llama.cpp wheel, no model, no speed probe), then time the README's main job as a user types it: the plan, then
# ./run_all.sh (set-up, probes, every notebook). Prints both times and the plan against the run notebook by
# notebook (benchmarks/plan_vs_run.py); the clone is left for inspection. benchmarks/fresh_clone.sh does the same
# for the test command.
#
#   benchmarks/fresh_run.sh [RUN_ALL_ARGS ...]     e.g. benchmarks/fresh_run.sh --profile smoke
source "$(dirname "$0")/fresh_home.sh"
profile=default
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = --profile ] && profile=${args[$((i + 1))]}; done
start=$(date +%s)
./run_all.sh --plan "$@" > "$work/plan.log" 2>&1; plan_rc=$?
planned=$(date +%s)
./run_all.sh "$@" > "$work/run.log" 2>&1; run_rc=$?
done_at=$(date +%s)
echo "clone: $work/clone (logs: $work/plan.log, $work/run.log)"
echo "plan:  $((planned - start)) s (exit $plan_rc): $(grep -E '^ +total' "$work/plan.log" | tail -n 1)"
echo "run:   $((done_at - planned)) s with set-up and probes (exit $run_rc)"
grep -E '^speed probe: ' "$work/run.log"
.venv/bin/python benchmarks/plan_vs_run.py --profile "$profile"
notebooks_s=$(awk -F'\t' 'NF == 2 {s += $2} END {printf "%.0f", s}' "results/notebooks/$profile/timings.tsv")
python3 "$repo/benchmarks/measured_rows.py" default_run home=empty wall_s=$((done_at - planned)) \
    notebooks_s="$notebooks_s" note="benchmarks/fresh_run.sh $*; plan before set-up: $work/plan.log"
