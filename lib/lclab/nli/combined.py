"""Combined NLI scores: the model's p(supported) with word overlap, in a logistic regression cross-fitted so that
no hypothesis is scored by a model fitted on its own item. Two mixes:

    combined   p(supported) and overlap, linearly
    gated      p(supported), and overlap only as evidence against support where the model is unsure
               (the feature (1 - overlap) x 4 p (1 - p): zero where p is near 0 or 1)

Sentences labelled apart from this repo by the agent session that filed issue 35 (28 items, 136 hypotheses;
the 1.5B, probability variant)
showed that the linear mix loses to p(supported) alone: context -> answer AUC 0.81 vs 0.90, paired -0.09
[-0.17, -0.03], and 0.45 vs 0.75 on the 8 items where the words mislead (an unsupported sentence that reuses
the context's words with a swapped number, place or negation keeps all its overlap). So p(supported) is what
the notebook reads; each mix is reported beside it with the paired AUC difference and its interval, resampled
by item, and a verdict read from that interval: a mix that does not beat p(supported) out of fold is never
the score to use.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..scoring.baselines import content_overlap
from ..scoring.score_eval import paired_auc_difference
from ..stats import interval_verdict
from .items import DIRECTION_NAMES, DIRECTIONS

FOLDS = 5
# Below this many labelled sentences of either class a fold's fit is a few points, and pooling out-of-fold
# scores from such fits anti-ranks them (each fold's intercept moves against its held-out class): on 8 items
# and 9 labels the combined AUC came out 0.00. Fewer than that, and no combined score is given.
MIN_PER_CLASS = 10
COMBINED = "p(supported) + overlap, cross-fitted"
GATED = "p(supported), overlap where unsure, cross-fitted"


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


def gated_features(p_supported: np.ndarray, overlap: np.ndarray) -> np.ndarray:
    """The gated mix's features: logit p(supported), and missing overlap weighted by how unsure the model is
    (4 p (1 - p): 1 at p = 0.5, 0 at 0 and 1), so overlap can only pull an unsure verdict down."""
    p = np.clip(p_supported.astype(float), 1e-4, 1 - 1e-4)
    return np.column_stack([np.log(p / (1 - p)), (1 - overlap.astype(float)) * 4 * p * (1 - p)])


def with_combined(hyp: pd.DataFrame, config_columns: list[str]) -> pd.DataFrame:
    """`hyp` with `overlap`, `combined_p` and `gated_p` columns: each mix fitted per configuration and direction
    on that configuration's labelled hypotheses."""
    overlap = hyp["overlap"] if "overlap" in hyp else overlap_scores(hyp)  # given, or the baseline's
    out = hyp.assign(overlap=overlap, combined_p=math.nan, gated_p=math.nan)
    for _, part in out.groupby([*config_columns, "direction"], sort=False):
        labels, groups = part["entailed"].to_numpy(dtype=float), part["item_id"].astype(str).to_numpy()
        p, overlap = part["estimate_p"].to_numpy(dtype=float), part["overlap"].to_numpy(dtype=float)
        out.loc[part.index, "combined_p"] = cross_fitted(np.column_stack([p, overlap]), labels, groups)
        out.loc[part.index, "gated_p"] = cross_fitted(gated_features(p, overlap), labels, groups)
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
            gated = paired_auc_difference(y, sub.get("gated_p", pd.Series(math.nan, index=sub.index)),
                                          sub["estimate_p"], clusters=items)
            wins = [name for name, r in ((COMBINED, vs_p), (GATED, gated))
                    if interval_verdict(r["difference_lo"], r["difference_hi"]) == "beats"]
            rows.append({**dict(zip(config_columns, keys)), "direction": DIRECTION_NAMES[d],
                         "n_labelled": vs_p["n"], "items": vs_p.get("n_clusters"),
                         "auc_p_supported": vs_p["auc_b"], "auc_overlap": vs_overlap["auc_b"],
                         "auc_combined": vs_p["auc_a"],
                         "combined_minus_p": vs_p["difference"], "lo_vs_p": vs_p["difference_lo"],
                         "hi_vs_p": vs_p["difference_hi"],
                         "combined_vs_p": interval_verdict(vs_p["difference_lo"], vs_p["difference_hi"]),
                         "combined_minus_overlap": vs_overlap["difference"],
                         "lo_vs_overlap": vs_overlap["difference_lo"],
                         "hi_vs_overlap": vs_overlap["difference_hi"],
                         "auc_gated": gated["auc_a"], "gated_minus_p": gated["difference"],
                         "gated_lo_vs_p": gated["difference_lo"], "gated_hi_vs_p": gated["difference_hi"],
                         "gated_vs_p": interval_verdict(gated["difference_lo"], gated["difference_hi"]),
                         # The score to read: p(supported), unless a mix beats it out of fold (its interval > 0).
                         "score_to_use": wins[0] if wins else "p(supported)"})
    return pd.DataFrame(rows)
