"""A score's card against a kept blind review's verdicts (benchmarks/round_trip_card.py, standalone_card.py): the
ROC AUC of each score, kept = 1 against rejected = 0, with its interval over resampled passages (the unit)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
from lclab.models import ACCOUNTING  # noqa: E402
from lclab.scoring.score_eval import roc_auc  # noqa: E402
from lclab.stats.card import cluster_auc_ci  # noqa: E402


def card_rows(scored: pd.DataFrame, scores: tuple[str, ...], labels: str, judge: str, review: str) -> list[dict]:
    """One row per score, on the pairs the judge could read (`judge_p` given); `label` the verdict, `doc_id` the
    passage."""
    read = scored[scored["judge_p"].notna()]
    y, clusters = read["label"].to_numpy(int), read["doc_id"].to_numpy()
    out = []
    for score in scores:
        x = read[score].astype(float).to_numpy()
        lo, hi = cluster_auc_ci(y, x, clusters)
        out.append({"review": review, "judge": judge, "labels": labels, "score": score, "n_pairs": len(read),
                    "n_passages": len(set(clusters)), "kept": int(y.sum()), "rejected": int((1 - y).sum()),
                    "unreadable": int(scored["judge_p"].isna().sum()), "auc": round(roc_auc(y, x), 3),
                    "auc_lo": round(lo, 3), "auc_hi": round(hi, 3)})
    return out


def measure(doc: str, out: str, read_pairs: Callable[[Path], pd.DataFrame],
            verdicts: Callable[[pd.DataFrame, str], pd.DataFrame], scores: tuple[str, ...],
            subsets: dict[str, Callable[[pd.DataFrame], pd.Series]]) -> pd.DataFrame:
    """A card script's command line: read a review folder's pairs, score them (`verdicts`, the judge's calls
    counted and timed), print one card row per subset of labels and score, and with --append add them to `out` in the review folder."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("review", type=Path, help="a kept review folder (data/qa_reviews/<run>)")
    parser.add_argument("--judge", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--append", action="store_true", help=f"add the rows to <review>/{out}")
    args = parser.parse_args()
    pairs = read_pairs(args.review)
    ACCOUNTING.reset()
    start = time.perf_counter()
    scored = pairs[["qa_id", "doc_id", "validated", "review_reason"]].merge(verdicts(pairs, args.judge), on="qa_id")
    seconds = time.perf_counter() - start
    scored["label"] = (scored["validated"] == "yes").astype(int)
    rows = [row for labels, chosen in subsets.items()
            for row in card_rows(scored[chosen(scored)], scores, labels, args.judge, args.review.name)]
    calls = ACCOUNTING.table().set_index("stage").loc["total"]
    table = pd.DataFrame(rows).assign(calls=int(calls["calls"]), seconds=round(seconds, 1))
    print(table.to_string(index=False))
    if args.append:
        path = args.review / out
        table.to_csv(path, mode="a", header=not path.exists(), index=False)
    return scored
