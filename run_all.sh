#!/usr/bin/env bash
# Run every notebook with papermill: executed copies go to results/notebooks/<profile>/,
# per-item results to results/<experiment>/<run>/, figures to figures/, and a static
# report of it all to results/report/index.html.
# The first run sets everything up (see scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")"

usage() {
  cat <<'USAGE'
usage: ./run_all.sh [--profile NAME] [--model SPEC] [NOTEBOOK ...]

  --profile NAME   parameter set params/NAME.yaml or a .yaml path (default: default; smoke: ~1 min per notebook)
  --plan           print calls, tokens, expected cache hits and estimated time or cost per notebook
                   and stage, without calling or loading a model, and stop
  --target W       with --plan: the 95 % half-width a comparison should reach (default 0.10)
  --model SPEC     answering model for every notebook, e.g. local/qwen2.5-coder-0.5b,
                   local/path/to/file.gguf, openai/gpt-4o-mini, ollama/llama3.1
                   (keys come from the environment, e.g. OPENAI_API_KEY)
  NOTEBOOK         run only these notebooks (file stems, e.g. 01_lost_in_the_middle)
  -h, --help       this text
USAGE
}

profile=default
model=""
plan=0
target=""
notebooks=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) [ $# -ge 2 ] || { usage >&2; exit 2; }; profile=$2; shift 2 ;;
    --profile=*) profile=${1#*=}; shift ;;
    --model) [ $# -ge 2 ] || { usage >&2; exit 2; }; model=$2; shift 2 ;;
    --model=*) model=${1#*=}; shift ;;
    --plan) plan=1; shift ;;
    --target) [ $# -ge 2 ] || { usage >&2; exit 2; }; target=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run_all.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    *) notebooks+=("$1"); shift ;;
  esac
done
if [ ! -f "params/$profile.yaml" ] && [ ! -f "$profile" ]; then
  case "$profile" in
    */*|*.yaml|*.yml) echo "run_all.sh: no profile file '$profile'" >&2 ;;
    *) echo "run_all.sh: no profile '$profile' (looked for params/$profile.yaml)" >&2 ;;
  esac
  exit 2
fi

source scripts/bytecode.sh
args=(--profile "$profile")
[ -n "$model" ] && args+=(--model "$model")
[ -n "$target" ] && args+=(--target "$target")
if [ "$plan" = 1 ]; then
  scripts/setup.sh --plan  # what a plan needs, not the llama.cpp compile: the plan says what set-up still fetches
  exec .venv/bin/python -m lclab.runs.notebooks "${args[@]}" --plan ${notebooks[@]+"${notebooks[@]}"}
fi
scripts/setup.sh
# Assemble only the embedded models this run will load (notebook defaults + profile + --model);
# this also checks every notebook's parameters before anything runs.
models=$(.venv/bin/python -m lclab.runs.notebooks "${args[@]}" --models-needed ${notebooks[@]+"${notebooks[@]}"})
scripts/setup.sh $models
# This machine's speed for each of them and the embedder, measured once (seconds each): what plans price calls at.
.venv/bin/python -m lclab.planning.probe $models local/all-MiniLM-L6-v2

status=0
.venv/bin/python -m lclab.runs.notebooks "${args[@]}" ${notebooks[@]+"${notebooks[@]}"} || status=$?
# A static report of what ran: results/report/index.html (every executed notebook as HTML, the index of runs).
# Not when nothing started (every notebook refused: status 2): there is nothing new to report.
[ "$status" = 2 ] || .venv/bin/python -m lclab.runs.report --profile "$profile" ${model:+--model "$model"} || true
exit $status
