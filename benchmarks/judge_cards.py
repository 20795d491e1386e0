"""Every embedded judge's card on every kind of shipped labelled texts, with the time it took: the table of
docs/trusting-the-numbers.md ("The judges' cards on the shipped texts").

    .venv/bin/python benchmarks/judge_cards.py                       # both embedded judges, every kind, all texts
    .venv/bin/python benchmarks/judge_cards.py --judges local/qwen2.5-coder-1.5b --n-texts 40

Verdicts are kept per judge in ~/.cache/lclab/judge_cards (what every run reads), so a second call prints the
same cards at once; the seconds are those of this call.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
from lclab.models import ACCOUNTING  # noqa: E402
from lclab.models.judge_choice import EMBEDDED_BY_STRENGTH  # noqa: E402
from lclab.scoring.judge_card import judge_card  # noqa: E402
from lclab.scoring.shipped_texts import KINDS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", nargs="+", default=list(EMBEDDED_BY_STRENGTH))
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    parser.add_argument("--n-texts", type=int, default=0, help="texts per kind (0: all)")
    args = parser.parse_args()
    rows = []
    for judge in args.judges:
        for kind in args.kinds:
            ACCOUNTING.reset()
            start = time.perf_counter()
            card = judge_card(judge, kind, args.n_texts or None)
            calls = ACCOUNTING.table().set_index("stage").loc["total"]
            rows.append({**card, "seconds": round(time.perf_counter() - start, 1), "calls": int(calls["calls"]),
                         "prompt_tokens": int(calls["prompt_tokens"])})
    table = pd.DataFrame(rows)
    shown = ["judge", "kind", "n", "n_clusters", "unscored", "base_rate", "auc", "auc_lo", "auc_hi", "sensitivity",
             "specificity", "youden", "youden_lo", "youden_hi", "baseline_auc", "auc_vs_baseline_lo",
             "auc_vs_baseline_hi", "informative", "calls", "prompt_tokens", "seconds"]
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table[shown].round(3).to_string(index=False))


if __name__ == "__main__":
    main()
