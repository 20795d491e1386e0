# Sourced by benchmarks/fresh_clone.sh and benchmarks/fresh_run.sh: a plain clone of this repo in a temporary folder
# ($work/clone, the current folder after this) with an empty home folder ($work/home: no pip cache, no llama.cpp
# wheel, no model, no speed probe) and none of the lab's folders redirected, as a new user starts.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
mkdir -p "$work/home"
git clone -q "$repo" "$work/clone" && cd "$work/clone" || exit 1
export HOME="$work/home"
export LCLAB_MEASURED_DIR="$repo/benchmarks/measured"  # the rows go to the checkout, not the clone
unset XDG_CACHE_HOME LCLAB_WHEEL_DIR LCLAB_CACHE_DIR LCLAB_OUTPUT_DIR LCLAB_CARD_DIR LCLAB_EMBEDDING_CACHE_DIR
