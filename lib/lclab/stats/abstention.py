"""Answering when the text holds the answer, abstaining when it does not (Michelangelo's IDK task, RAG-IFEval's
refusal condition), reported side by side.

The two rates come from different clusters (an unanswerable haystack or document set is built apart from the
answerable ones), so each gets its own cluster t interval (`cluster_mean_ci`), and the combined score, the mean
of accuracy on answerable items and abstention on unanswerable ones, gets the interval of a mean of two
independent estimates (from their cluster-robust standard errors). A model that always answers scores at
most 0.5 on it, one that always refuses exactly 0.5: neither habit pays.
"""

from __future__ import annotations

import math

import pandas as pd

from .clusters import _by_cluster, _cluster_t, cluster_mean_ci

COLUMNS = ["answerable_units", "answered", "answered_lo", "answered_hi", "accuracy", "accuracy_lo", "accuracy_hi",
           "unanswerable_units", "abstained", "abstained_lo", "abstained_hi", "combined", "combined_lo",
           "combined_hi"]


def unanswerable_count(share: float, answerable: int) -> int:
    """Unanswerable units beside `answerable` ones so that they are `share` of all (rounded half up, at least
    one when the share is above 0)."""
    if not 0 <= share <= 0.9:
        raise ValueError(f"unanswerable_share must be within 0 to 0.9, got {share}")
    return 0 if share == 0 else max(1, math.floor(share * answerable / (1 - share) + 0.5))


def _se(values: pd.Series, clusters: pd.Series) -> float:
    """The cluster-robust standard error of a mean (NaN below two clusters). Read from the data, not back from
    an interval: `cluster_mean_ci` clips its interval to the values' range, which would shrink it."""
    cells = _by_cluster(values, clusters)
    return _cluster_t(cells, 0.95)[1] if len(cells) >= 2 else math.nan


def abstention_row(items: pd.DataFrame, score: str, abstained: str, cluster: str) -> dict:
    """One group's rates. `items` holds both kinds (column `answerable`); `score` is correctness on answerable
    items, `abstained` 1 where the reply is a refusal (lclab.scoring.refusal), on every item."""
    yes = items[items["answerable"].astype(bool)].dropna(subset=[score])
    no = items[~items["answerable"].astype(bool)].dropna(subset=[abstained])
    answered = cluster_mean_ci(1 - yes[abstained].astype(float), yes[cluster])
    accuracy = cluster_mean_ci(yes[score].astype(float), yes[cluster])
    refused = cluster_mean_ci(no[abstained].astype(float), no[cluster])
    combined = (accuracy["mean"] + refused["mean"]) / 2
    se = math.hypot(_se(yes[score].astype(float), yes[cluster]), _se(no[abstained].astype(float), no[cluster])) / 2
    return {"answerable_units": answered["n_clusters"], "answered": answered["mean"], "answered_lo": answered["lo"],
            "answered_hi": answered["hi"], "accuracy": accuracy["mean"], "accuracy_lo": accuracy["lo"],
            "accuracy_hi": accuracy["hi"], "unanswerable_units": refused["n_clusters"], "abstained": refused["mean"],
            "abstained_lo": refused["lo"], "abstained_hi": refused["hi"], "combined": combined,
            "combined_lo": max(0.0, combined - 1.96 * se) if not math.isnan(se) else math.nan,
            "combined_hi": min(1.0, combined + 1.96 * se) if not math.isnan(se) else math.nan}


def abstention_table(items: pd.DataFrame, by: list[str], score: str, abstained: str, cluster: str) -> pd.DataFrame:
    """`abstention_row` per group of `by`; empty (with its columns) when no item is unanswerable."""
    if items.empty or "answerable" not in items or items["answerable"].astype(bool).all():
        return pd.DataFrame(columns=[*by, *COLUMNS])
    rows = [{**dict(zip(by, key if isinstance(key, tuple) else (key,))),
             **abstention_row(part, score, abstained, cluster)}
            for key, part in items.groupby(by, sort=False)]
    return pd.DataFrame(rows, columns=[*by, *COLUMNS])
