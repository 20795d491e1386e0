"""What ordering NLI requests by premise saves on a llama.cpp backend (KV-cache prefix reuse).

    .venv/bin/python benchmarks/nli_prefix_reuse.py [--model local/qwen2.5-coder-1.5b] [--items 8] [--prefill-only]

The NLI requests of the first `--items` items of data/nli_eval are sent twice,
each time into a fresh, empty model-call cache: grouped by premise (what
lclab.nli.run does), then in a seeded shuffle. Only prompt evaluation differs
between the two, so `--prefill-only` asks for one token per request, which
isolates that cost; without it the full NLI replies are generated.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from lclab.models import Request, complete
from lclab.nli import load_items, order_requests, prepare
from lclab.nli.pipeline import judge_hypothesis, nli_messages
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--items", type=int, default=8)
    parser.add_argument("--prefill-only", action="store_true")
    args = parser.parse_args()

    items = load_items("data/nli_eval/items.jsonl")[:args.items]
    requests = []
    for it in items:
        p = prepare(it)
        p.answer, p.gt = p.answer_raw, p.gt_raw  # no pronoun replacement: only the NLI calls are timed
        for _, premise, hyps, _, doc in p.pairs(with_document=False):
            requests += [{"premise": premise, "hypothesis": h} for h in hyps]
    complete(args.model, "Say ok.", stage="warm-up", request=Request(max_tokens=2))  # load the model outside the timing

    print(f"{len(requests)} NLI requests over {len(items)} items, {args.model}, "
          f"{'prefill only (1 token)' if args.prefill_only else 'full replies'}")
    for order in ("premise", "shuffled"):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["LCLAB_CACHE_DIR"] = cache  # nothing cached: every prompt is evaluated
            prompt_tokens = 0
            t0 = time.perf_counter()
            for r in order_requests(requests, order, seed=0):
                if args.prefill_only:
                    reply = complete(args.model, nli_messages("separated", r["premise"], r["hypothesis"]), stage="nli",
                                     request=Request(max_tokens=1))
                    prompt_tokens += reply.prompt_tokens
                else:
                    judge_hypothesis(args.model, "separated", r["premise"], r["hypothesis"])
            wall = time.perf_counter() - t0
        print(f"  order={order:9s} {wall:7.1f} s  {wall / len(requests):5.2f} s/request"
              + (f"  {prompt_tokens} prompt tokens" if args.prefill_only else ""))
        if args.prefill_only:  # the page's rows are of prefill alone
            print(append("nli_prefix_reuse", [{"model": args.model.removeprefix("local/"), "order": order,
                                                "requests": len(requests), "items": len(items),
                                                "seconds": f"{wall:.1f}", "s_per_request": f"{wall / len(requests):.2f}",
                                                "prompt_tokens": prompt_tokens}]))


if __name__ == "__main__":
    main()
