"""A score's card against a kept blind review's verdicts (benchmarks/round_trip_card.py, standalone_card.py): the
ROC AUC of each score, kept = 1 against rejected = 0, with its interval over resampled passages (the unit)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
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
