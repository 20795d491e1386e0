"""Intervals and tests whose independent unit is the cluster (a QA pair, a document, a sample, a haystack).

Items that share a QA pair are not independent: the 5 depths of one pair succeed or fail together far more
often than 5 pairs do. Resampling or testing items as if they were independent makes every interval too
narrow (tests/test_cluster_stats.py measures by simulation how much). Here

    cluster_mean_ci(values, clusters)           the item mean with a cluster bootstrap CI (scipy, BCa)
    cluster_paired_effect(a, b, clusters)       mean difference a - b over items, CI by cluster bootstrap,
                                                p by an exact sign-flip permutation of the per-cluster
                                                mean differences (scipy.stats.permutation_test)
    depth_length_gee(items, ...)                a logistic GEE of correctness on depth and log2 length with
                                                the QA pair as cluster (statsmodels): each effect in one line

Every result says its unit and how many there were ("14 QA pairs", not "70 items").
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

N_RESAMPLES = 4999  # cluster bootstraps: enough for a stable 95 % interval, seconds at most
EXACT_UP_TO = 16  # sign-flip tests enumerate all 2**k sign patterns up to this many clusters


def _by_cluster(values, clusters) -> pd.DataFrame:
    frame = pd.DataFrame({"value": values, "cluster": clusters}).dropna()
    # Sums rounded to 12 decimals: a value read back from a file one unit in the last place off (pandas'
    # default JSON float parser) must not move a bootstrap bound, as ties between resamples otherwise can.
    return frame.groupby("cluster", sort=True)["value"].agg(["sum", "count"]).round({"sum": 12})


def cluster_mean_ci(values, clusters, level: float = 0.95, seed: int = 0) -> dict:
    """The mean of item values with a bootstrap CI that resamples whole clusters.

    The statistic is the ratio of summed values to summed counts over the resampled clusters (each item
    weighs the same, as in the point estimate). BCa where it can be computed, percentile otherwise.
    Returns {"mean", "lo", "hi", "n_items", "n_clusters"}.
    """
    from scipy.stats import bootstrap

    cells = _by_cluster(values, clusters)
    k, n = len(cells), int(cells["count"].sum())
    mean = float(cells["sum"].sum() / n) if n else math.nan
    out = {"mean": mean, "lo": math.nan, "hi": math.nan, "n_items": n, "n_clusters": k}
    if k < 2:
        return out
    if cells["sum"].div(cells["count"]).nunique() == 1:  # every cluster the same: no spread to resample
        return out | {"lo": mean, "hi": mean}

    def ratio(sums, counts, axis=-1):
        return sums.sum(axis=axis) / counts.sum(axis=axis)

    data = (cells["sum"].to_numpy(float), cells["count"].to_numpy(float))
    for method in ("BCa", "percentile"):
        res = bootstrap(data, ratio, paired=True, vectorized=True, n_resamples=N_RESAMPLES, confidence_level=level,
                        method=method, random_state=np.random.default_rng(seed))
        lo, hi = res.confidence_interval
        if np.isfinite(lo) and np.isfinite(hi):
            return out | {"lo": float(lo), "hi": float(hi)}
    return out


def sign_flip_test(cluster_differences) -> float:
    """Two-sided p of a mean difference of zero, flipping the sign of whole clusters' mean differences
    (exact up to EXACT_UP_TO clusters); 1.0 when every difference is 0."""
    from scipy.stats import permutation_test

    d = np.asarray(cluster_differences, dtype=float)
    if len(d) < 2 or not np.any(d):  # one cluster: its two sign patterns are equally extreme, p = 1
        return 1.0
    n_resamples = 2 ** len(d) if len(d) <= EXACT_UP_TO else 20_000
    res = permutation_test((d,), np.mean, permutation_type="samples", alternative="two-sided",
                           n_resamples=n_resamples, random_state=np.random.default_rng(0), vectorized=False)
    return float(min(1.0, res.pvalue))


def cluster_paired_effect(a, b, clusters, level: float = 0.95, seed: int = 0) -> dict:
    """The paired difference a - b over items, with its independent unit the cluster: the CI resamples
    clusters, the p-value flips the signs of per-cluster mean differences. a and b are aligned item by item.

    Returns {"effect", "effect_lo", "effect_hi", "p_value", "n_pairs", "n_clusters"}.
    """
    frame = pd.DataFrame({"a": pd.to_numeric(pd.Series(list(a)), errors="coerce").astype(float),  # verdicts too
                          "b": pd.to_numeric(pd.Series(list(b)), errors="coerce").astype(float),
                          "cluster": list(clusters)}).dropna()
    diff = frame["a"] - frame["b"]
    ci = cluster_mean_ci(diff.to_numpy(), frame["cluster"].to_numpy(), level, seed)
    per_cluster = diff.groupby(frame["cluster"]).mean()
    return {"effect": ci["mean"], "effect_lo": ci["lo"], "effect_hi": ci["hi"],
            "p_value": sign_flip_test(per_cluster.to_numpy()), "n_pairs": ci["n_items"],
            "n_clusters": ci["n_clusters"]}


def depth_length_gee(items: pd.DataFrame, value: str = "judge_correct", cluster: str = "qa_id",
                     depth: str = "depth", length: str = "context_tokens") -> pd.DataFrame:
    """Logistic GEE of a yes/no outcome on depth (per 100 %: top to bottom) and log2 length (per doubling),
    exchangeable within clusters, with cluster-robust 95 % CIs as odds ratios. A term that does not vary is
    left out; too few clusters or outcomes all alike give an empty table."""
    import statsmodels.api as sm

    data = items[[value, cluster, depth, length]].dropna()
    data = data.assign(y=data[value].astype(float), depth_100=data[depth].astype(float) / 100,
                       log2_length=np.log2(data[length].astype(float)))
    terms = [t for t in ("depth_100", "log2_length") if data[t].nunique() > 1]
    if not terms or data["y"].nunique() < 2 or data[cluster].nunique() < 3:
        return pd.DataFrame(columns=["term", "odds_ratio", "lo", "hi", "p_value", "n_items", "n_clusters"])
    model = sm.GEE(data["y"], sm.add_constant(data[terms]), groups=data[cluster], family=sm.families.Binomial(),
                   cov_struct=sm.cov_struct.Exchangeable())
    fit = model.fit()
    ci = fit.conf_int()
    return pd.DataFrame([{"term": t, "odds_ratio": math.exp(fit.params[t]), "lo": math.exp(ci.loc[t, 0]),
                          "hi": math.exp(ci.loc[t, 1]), "p_value": float(fit.pvalues[t]), "n_items": len(data),
                          "n_clusters": int(data[cluster].nunique())} for t in terms])
