"""One shared haystack per length (needle-in-a-haystack style) against one haystack per QA pair, at equal calls
on the local model: how much wall time does prefix reuse save?

    .venv/bin/python benchmarks/shared_prefix.py [--model local/qwen2.5-coder-0.5b] [--pairs 4] [--tokens 1500]

Both arms answer the same pairs at the same depths and budget, from a cold cache each (a temporary cache
folder), with one llama.cpp context: per pair, deepest needle first (a pair's prompts share the haystack
before the needle); shared, all pairs at one depth before the next (every prompt shares the haystack up to
its needle). Prints the wall time of each arm and their ratio.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from lclab.depth_sweep import build_trials
from lclab.models import Request, budget_counters, complete
from lclab.qa import load_validated
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local/qwen2.5-coder-0.5b")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=1500)
    parser.add_argument("--depths", type=int, nargs="+", default=[0, 50, 100])
    args = parser.parse_args()
    _, pool, qa = load_validated("paul_graham", "data/pg_qa/qa.csv", args.pairs)
    count, text = budget_counters(args.model)
    complete(args.model, "Warm up.", stage="warmup", request=Request(max_tokens=2))  # load the weights before timing
    times, prompt_tokens = {}, {}
    for haystack in ("per_pair", "shared"):
        trials = build_trials(qa, pool, [args.tokens], args.depths, 0, (count, text), haystack=haystack)
        with tempfile.TemporaryDirectory() as cache:
            os.environ["LCLAB_CACHE_DIR"] = cache
            complete(args.model, f"Forget the last prompt ({haystack}).", stage="warmup", request=Request(max_tokens=2))
            started = time.perf_counter()
            replies = [complete(args.model, t.prompt, stage="answer", request=Request(max_tokens=8)) for t in trials]
            times[haystack] = time.perf_counter() - started
        prompt_tokens[haystack] = sum(r.prompt_tokens for r in replies)
        assert not any(r.cached for r in replies)
    print(f"shared vs per-pair haystacks: {args.pairs} pairs x {len(args.depths)} depths, {args.tokens}-token "
          f"budget, {args.model}")
    for haystack, seconds in times.items():
        print(f"  {haystack:9s} {seconds:7.1f} s  {len(trials)} calls  {prompt_tokens[haystack]} prompt tokens")
    print(f"wall-time ratio per-pair / shared: {times['per_pair'] / times['shared']:.2f}")
    print(append("shared_prefix", [{"model": args.model.removeprefix("local/"), "layout": haystack,
                                     "calls": len(trials), "seconds": f"{seconds:.1f}",
                                     "prompt_tokens": prompt_tokens[haystack]} for haystack, seconds in times.items()]))


if __name__ == "__main__":
    main()
