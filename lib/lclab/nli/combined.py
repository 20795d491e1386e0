"""A combined NLI score: the model's p(supported) and word overlap fail in different places, so both go into one
logistic regression, cross-fitted so that no hypothesis is scored by a model fitted on its own item.

Labelled sentences written apart from this repo showed the split: where an unsupported sentence reuses the
context's words with a swapped number, place or negation, p(supported) separates and overlap cannot (AUC 0.75
vs 0.10); on close paraphrases overlap wins (0.85-0.95). The combined score is read beside both, with the
paired difference against each resampled by item (an item's sentences are one cluster).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..scoring.baselines import content_overlap
from ..scoring.score_eval import paired_auc_difference
from .items import DIRECTION_NAMES, DIRECTIONS

FOLDS = 5
# Below this many labelled sentences of either class a fold's fit is a few points, and pooling out-of-fold
# scores from such fits anti-ranks them (each fold's intercept moves against its held-out class): on 8 items
# and 9 labels the combined AUC came out 0.00. Fewer than that, and no combined score is given.
MIN_PER_CLASS = 10
COMBINED = "p(supported) + overlap, cross-fitted"


def overlap_scores(hyp: pd.DataFrame) -> pd.Series:
    """The hypothesis's content words found in its premise (the judge-free baseline), per row."""
    return pd.Series([content_overlap(h, p) for h, p in zip(hyp["sentence"], hyp["premise"])], index=hyp.index,
                     dtype=float)


def cross_fitted(features: np.ndarray, labels: np.ndarray, groups: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """Out-of-fold P(label = 1) of a logistic regression on `features`: each fold's rows are scored by a model
    fitted on the other folds' groups (whole items). NaN where a row lacks a feature or its training folds hold
    one class only, and everywhere when either class has fewer than MIN_PER_CLASS usable rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    out = np.full(len(labels), math.nan)
    usable = ~np.isnan(features).any(axis=1) & ~np.isnan(labels)
    rows = np.flatnonzero(usable)
    n_groups = len(set(groups[rows]))
    if n_groups < 2 or min((labels[rows] == 1).sum(), (labels[rows] == 0).sum()) < MIN_PER_CLASS:
        return out
    for train, test in GroupKFold(n_splits=min(folds, n_groups)).split(rows, groups=groups[rows]):
        y = labels[rows[train]]
        if y.min() == y.max():
            continue
        model = LogisticRegression().fit(features[rows[train]], y.astype(int))
        out[rows[test]] = model.predict_proba(features[rows[test]])[:, 1]
    return out


def with_combined(hyp: pd.DataFrame, config_columns: list[str]) -> pd.DataFrame:
    """`hyp` with `overlap` and `combined_p` columns: the combined score fitted per configuration and direction on
    that configuration's labelled hypotheses."""
    out = hyp.assign(overlap=overlap_scores(hyp), combined_p=math.nan)
    for _, part in out.groupby([*config_columns, "direction"], sort=False):
        features = part[["estimate_p", "overlap"]].to_numpy(dtype=float)
        out.loc[part.index, "combined_p"] = cross_fitted(features, part["entailed"].to_numpy(dtype=float),
                                                         part["item_id"].astype(str).to_numpy())
    return out


def combined_table(hyp: pd.DataFrame, config_columns: list[str]) -> pd.DataFrame:
    """Per configuration and direction: AUC of p(supported), of overlap and of the combined score on the same
    labelled hypotheses, and the combined score's paired AUC difference against each with a 95 % CI that
    resamples items."""
    rows = []
    for keys, part in hyp.groupby(config_columns, sort=False):
        for d in DIRECTIONS:
            sub = part[(part["direction"] == d) & part["entailed"].notna()]
            if not len(sub):
                continue
            y, items = sub["entailed"].astype(int), sub["item_id"].astype(str)
            if sub["combined_p"].isna().all():
                rows.append({**dict(zip(config_columns, keys)), "direction": DIRECTION_NAMES[d], "n_labelled": len(sub),
                             "note": f"not fitted: {int((y == 0).sum())} unsupported and {int((y == 1).sum())} "
                                     f"supported labelled sentences (at least {MIN_PER_CLASS} of each are needed)"})
                continue
            vs_p = paired_auc_difference(y, sub["combined_p"], sub["estimate_p"], clusters=items)
            vs_overlap = paired_auc_difference(y, sub["combined_p"], sub["overlap"], clusters=items)
            rows.append({**dict(zip(config_columns, keys)), "direction": DIRECTION_NAMES[d],
                         "n_labelled": vs_p["n"], "items": vs_p.get("n_clusters"),
                         "auc_p_supported": vs_p["auc_b"], "auc_overlap": vs_overlap["auc_b"],
                         "auc_combined": vs_p["auc_a"],
                         "combined_minus_p": vs_p["difference"], "lo_vs_p": vs_p["difference_lo"],
                         "hi_vs_p": vs_p["difference_hi"],
                         "combined_minus_overlap": vs_overlap["difference"],
                         "lo_vs_overlap": vs_overlap["difference_lo"],
                         "hi_vs_overlap": vs_overlap["difference_hi"]})
    return pd.DataFrame(rows)
