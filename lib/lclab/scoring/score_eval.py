"""How well a score separates manual labels: ROC AUC, accuracy at a threshold, calibration.

    summary = separation_summary(labels, scores)   # AUC and accuracy with bootstrap 95 % CIs
    table = calibration_table(labels, scores)      # per score bin: mean score vs share labelled 1

Labels are 0/1 (or booleans). Scores are probabilities or 0/1 predictions; a
missing score (None/NaN: the scorer could not read the model's reply) is never
turned into a 0. It is left out, and the summary counts it as `unscored`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..stats import wilson_interval
from ..stats.card import cluster_auc_ci
from ..stats.clusters import cluster_mean_ci


def _as_scores(scores) -> np.ndarray:
    """Scores as floats, a missing one (None) as NaN."""
    return np.asarray([math.nan if s is None else s for s in scores], dtype=float)


def _clean(labels, scores) -> tuple[np.ndarray, np.ndarray, int]:
    labels = np.asarray(labels, dtype=float)
    scores = _as_scores(scores)
    if labels.shape != scores.shape:
        raise ValueError(f"{len(labels)} labels but {len(scores)} scores")
    if np.isnan(labels).any() or not np.isin(labels, (0, 1)).all():
        raise ValueError("labels must all be 0 or 1")
    scored = ~np.isnan(scores)
    return labels[scored].astype(int), scores[scored], int((~scored).sum())


def roc_auc(labels, scores) -> float:
    """P(score of a random positive > score of a random negative), ties counting one half.

    NaN when either class is absent, since AUC is undefined then (not 0.5).
    """
    labels, scores, _ = _clean(labels, scores)
    return _auc(labels, scores)


def _auc(labels: np.ndarray, scores: np.ndarray) -> float:
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return math.nan
    greater = (pos[:, None] > neg[None, :]).sum()
    ties = (pos[:, None] == neg[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(pos) * len(neg)))


def bootstrap_auc_ci(labels, scores, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval for ROC AUC, resampling items within each class.

    Resampling within classes keeps both classes in every replicate, so no
    replicate is dropped for having one class only (which would bias the interval).
    """
    labels, scores, _ = _clean(labels, scores)
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    aucs = np.empty(n_boot)
    for b in range(n_boot):
        p = pos[rng.integers(0, len(pos), len(pos))]
        n = neg[rng.integers(0, len(neg), len(neg))]
        aucs[b] = ((p[:, None] > n[None, :]).sum() + 0.5 * (p[:, None] == n[None, :]).sum()) / (len(p) * len(n))
    alpha = (1 - level) / 2
    return float(np.quantile(aucs, alpha)), float(np.quantile(aucs, 1 - alpha))


def separation_summary(labels, scores, threshold: float = 0.5, clusters=None) -> dict:
    """AUC [CI], accuracy at `threshold` (score >= threshold predicts 1) [CI], counts. Without `clusters` the AUC's
    bootstrap resamples items within each class and the accuracy's interval is Wilson's over items; given
    `clusters` (each item's independent unit: a question whose positive and negative candidates are two items),
    the AUC's bootstrap resamples whole clusters and the accuracy's interval is the cluster-robust one
    (stats.clusters.cluster_mean_ci; none with fewer than two clusters)."""
    y, s, unscored = _clean(labels, scores)
    hits = ((s >= threshold).astype(int) == y).astype(float)
    correct = int(hits.sum())
    if clusters is None:
        auc_lo, auc_hi = bootstrap_auc_ci(y, s)
        acc_lo, acc_hi = wilson_interval(correct, len(y))
    else:
        scored = ~np.isnan(_as_scores(scores))  # the clusters of the items _clean kept
        kept = np.asarray(list(clusters), dtype=object)[scored]
        auc_lo, auc_hi = cluster_auc_ci(y, s, kept)
        # Two points of one question are right or wrong together more often than two questions are: Wilson's
        # interval over points would be too narrow.
        accuracy = cluster_mean_ci(hits, kept)
        acc_lo, acc_hi = accuracy["lo"], accuracy["hi"]
    return {
        "n": int(len(y)), "positives": int(y.sum()), "negatives": int(len(y) - y.sum()), "unscored": unscored,
        "auc": _auc(y, s), "auc_lo": auc_lo, "auc_hi": auc_hi,
        "accuracy": correct / len(y) if len(y) else math.nan, "accuracy_lo": acc_lo, "accuracy_hi": acc_hi,
    }


def calibration_table(labels, scores, n_bins: int = 5) -> pd.DataFrame:
    """Equal-width score bins over [0, 1]: items, mean score, share labelled 1 with its Wilson CI.

    A calibrated scorer has `observed` close to `mean_score` in every bin. Empty
    bins are left out. Scores of exactly 1.0 fall in the last bin.
    """
    y, s, _ = _clean(labels, scores)
    if ((s < 0) | (s > 1)).any():
        raise ValueError("calibration needs scores in [0, 1]")
    bins = np.minimum((s * n_bins).astype(int), n_bins - 1)
    rows = []
    for b in range(n_bins):
        inside = bins == b
        n = int(inside.sum())
        if not n:
            continue
        k = int(y[inside].sum())
        lo, hi = wilson_interval(k, n)
        rows.append({"bin": f"[{b / n_bins:.1f}, {(b + 1) / n_bins:.1f}" + ("]" if b == n_bins - 1 else ")"),
                     "n": n, "mean_score": float(s[inside].mean()), "observed": k / n,
                     "observed_lo": lo, "observed_hi": hi})
    return pd.DataFrame(rows)


def expected_calibration_error(labels, scores, n_bins: int = 10) -> float:
    """ECE: the item-weighted mean |observed share − mean score| over equal-width score bins (NaN without items)."""
    y, s, _ = _clean(labels, scores)
    if len(y) == 0:
        return math.nan
    bins = np.minimum((s * n_bins).astype(int), n_bins - 1)
    return float(sum(abs(y[bins == b].mean() - s[bins == b].mean()) * (bins == b).sum()
                     for b in range(n_bins) if (bins == b).any()) / len(y))


def paired_auc_difference(labels, scores_a, scores_b, n_boot: int = 2000, seed: int = 0, clusters=None) -> dict:
    """AUC(a) − AUC(b) of two scorers on the same items, with a bootstrap 95 % CI and a two-sided bootstrap
    p-value (twice the share of replicates on the far side of 0). The bootstrap resamples items within each
    class, or, given `clusters` (the item's independent unit: an answer, a question), whole clusters; a
    cluster replicate that holds one class only has no AUC and is dropped. Items that either scorer left
    unscored are left out and counted."""
    labels = np.asarray(labels, dtype=float)
    a, b = _as_scores(scores_a), _as_scores(scores_b)
    both = ~np.isnan(a) & ~np.isnan(b)
    y, a, b = labels[both].astype(int), a[both], b[both]
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    out = {"n": int(both.sum()), "left_out": int((~both).sum()), "auc_a": _auc(y, a), "auc_b": _auc(y, b)}
    out["difference"] = out["auc_a"] - out["auc_b"]
    if clusters is not None:
        groups = np.asarray(list(clusters), dtype=object)[both]
        members = [np.flatnonzero(groups == g) for g in dict.fromkeys(groups)]
        out["n_clusters"] = len(members)
    # One cluster resamples to itself every time: a zero-width interval and p = 0 that say nothing (no interval,
    # no test, as cluster_auc_ci gives the AUC itself).
    if len(pos) == 0 or len(neg) == 0 or out.get("n_clusters", 2) < 2:
        return {**out, "difference_lo": math.nan, "difference_hi": math.nan, "p_value": math.nan}
    rng = np.random.default_rng(seed)
    diffs = np.full(n_boot, math.nan)
    for i in range(n_boot):
        if clusters is None:
            idx = np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])
        else:
            idx = np.concatenate([members[j] for j in rng.integers(0, len(members), len(members))])
            if y[idx].min() == y[idx].max():
                continue
        diffs[i] = _auc(y[idx], a[idx]) - _auc(y[idx], b[idx])
    diffs = diffs[~np.isnan(diffs)]
    p = min(1.0, 2 * min((diffs <= 0).mean(), (diffs >= 0).mean()))
    return {**out, "difference_lo": float(np.quantile(diffs, 0.025)), "difference_hi": float(np.quantile(diffs, 0.975)),
            "p_value": float(p)}


def roc_points(labels, scores) -> tuple[np.ndarray, np.ndarray]:
    """False- and true-positive rates at every distinct threshold, from (0, 0) to (1, 1)."""
    from sklearn.metrics import roc_curve

    y, s, _ = _clean(labels, scores)
    fpr, tpr, _ = roc_curve(y, s)
    return fpr, tpr
