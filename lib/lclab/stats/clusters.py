"""Intervals and tests whose independent unit is the cluster (a QA pair, a document, a sample, a haystack).

Items that share a QA pair are not independent: the 5 depths of one pair succeed or fail together far more
often than 5 pairs do. Resampling or testing items as if they were independent makes every interval too
narrow (tests/test_cluster_stats.py measures by simulation how much). Here

    cluster_mean_ci(values, clusters)           the item mean with a t interval on its cluster-robust
                                                standard error (k - 1 df), within the values' range
    cluster_paired_effect(a, b, clusters)       mean difference a - b over items, with a t interval and t test
                                                on its cluster-robust standard error (k - 1 df): the interval
                                                that holds its level at 8 clusters, and a p-value that agrees
                                                with it
    depth_length_gee(items, ...)                a logistic GEE of correctness on depth and log2 length with
                                                the QA pair as cluster (statsmodels): each effect in one line

Every result says its unit and how many there were ("14 QA pairs", not "70 items").
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pandas as pd

EXACT_UP_TO = 16  # sign-flip tests enumerate all 2**k sign patterns up to this many clusters


def _numeric(values) -> np.ndarray:
    """Values as floats, position by position: a yes/no verdict is 1/0, anything that is not a number NaN."""
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        return array.astype(float)
    return pd.to_numeric(pd.Series(array, dtype=object), errors="coerce").to_numpy(dtype=float)


def _by_cluster(values, clusters) -> pd.DataFrame:
    """Per cluster (sorted), the sum and count of its items' values; items without a value or a cluster left out.
    Values and clusters pair up by position. Numpy, not a pandas groupby: the summaries call this once per cell
    (126 cells in notebook 09's run), where a groupby cost more than the rest of a run's lab time per cell."""
    numbers = _numeric(values)
    labels = pd.Series(list(clusters), dtype=object)  # a list of tuples stays one label per item
    if len(numbers) != len(labels):
        raise ValueError(f"{len(numbers)} values but {len(labels)} clusters: they pair up item by item")
    keep = ~np.isnan(numbers) & labels.notna().to_numpy()
    codes, names = pd.factorize(labels[keep], sort=True)
    # Sums rounded to 12 decimals: a value read back from a file one unit in the last place off (pandas'
    # default JSON float parser) must not move an interval bound.
    return pd.DataFrame({"sum": np.bincount(codes, weights=numbers[keep], minlength=len(names)).round(12),
                         "count": np.bincount(codes, minlength=len(names))}, index=pd.Index(names, name="cluster"))


@lru_cache(maxsize=64)
def _t_quantile(level: float, df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2, df))


def _cluster_t(cells: pd.DataFrame, level: float) -> tuple[float, float, float]:
    """(mean, cluster-robust standard error, t quantile at k - 1 df) of the item mean of per-cluster sums and
    counts. The variance is the sandwich one with the small-sample factor k / (k - 1); with equal cluster sizes
    the interval is the t interval of the cluster means."""
    sums, counts = cells["sum"].to_numpy(dtype=float), cells["count"].to_numpy(dtype=float)
    k, n = len(sums), float(counts.sum())
    mean = float(sums.sum() / n)
    residuals = sums - mean * counts
    se = math.sqrt(k / (k - 1) * float((residuals ** 2).sum())) / n
    return mean, se, _t_quantile(level, k - 1)


def cluster_mean_ci(values, clusters, level: float = 0.95, seed: int = 0) -> dict:
    """The mean of item values with a t interval on its cluster-robust standard error (k - 1 df), kept within
    the range of the values (a rate stays within 0 and 1).

    Why not the cluster bootstrap: with 8 clusters its BCa interval of a yes/no rate covered the truth in 92 %
    of simulated runs, the t interval in about 95 % (tests/test_cluster_stats.py keeps that measured). `seed`
    is kept for callers; nothing is drawn. Returns {"mean", "lo", "hi", "n_items", "n_clusters"}.
    """
    cells = _by_cluster(values, clusters)
    k, n = len(cells), int(cells["count"].sum())
    mean = float(cells["sum"].sum() / n) if n else math.nan
    out = {"mean": mean, "lo": math.nan, "hi": math.nan, "n_items": n, "n_clusters": k}
    if k < 2:
        return out
    mean, se, t = _cluster_t(cells, level)
    numbers = _numeric(values)
    low, high = float(np.nanmin(numbers)), float(np.nanmax(numbers))
    return out | {"lo": max(low, mean - t * se), "hi": min(high, mean + t * se)}


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
    """The paired difference a - b over items, with its independent unit the cluster. a and b are aligned item
    by item.

    The interval is a t interval (k - 1 degrees of freedom) on the cluster-robust standard error of the item
    mean of the differences; with equal cluster sizes it is the t interval of the per-cluster mean differences.
    The p-value is the same t test, so the verdict an interval gives (it holds 0 or not) and the p-value never
    disagree. Why not the cluster bootstrap: at the lab's sizes (8-14 clusters) its percentile and BCa intervals
    of a paired difference covered 0 in 92 % of simulated null comparisons, the t interval in 94-96 %
    (tests/test_cluster_stats.py keeps that measured). When every cluster differs by the same amount there is
    no spread to estimate: the interval is that amount where the exact sign-flip test rejects, else unknown.

    Returns {"effect", "effect_lo", "effect_hi", "p_value", "n_pairs", "n_clusters"}.
    """
    from scipy import stats

    frame = pd.DataFrame({"a": pd.to_numeric(pd.Series(list(a)), errors="coerce").astype(float),  # verdicts too
                          "b": pd.to_numeric(pd.Series(list(b)), errors="coerce").astype(float),
                          "cluster": list(clusters)}).dropna()
    cells = _by_cluster(frame["a"] - frame["b"], frame["cluster"])
    k, n = len(cells), int(cells["count"].sum())
    effect = float(cells["sum"].sum() / n) if n else math.nan
    out = {"effect": effect, "effect_lo": math.nan, "effect_hi": math.nan, "p_value": math.nan if not n else 1.0,
           "n_pairs": n, "n_clusters": k}
    if k < 2:
        return out
    effect, se, t = _cluster_t(cells, level)
    if se < 1e-12:  # every cluster differs by the same amount
        if abs(effect) < 1e-12:
            return out | {"effect_lo": 0.0, "effect_hi": 0.0, "p_value": 1.0}
        p = sign_flip_test(cells["sum"] / cells["count"])
        return out | {"p_value": p} | ({"effect_lo": effect, "effect_hi": effect} if p < 1 - level else {})
    return out | {"effect_lo": effect - t * se, "effect_hi": effect + t * se,
                  "p_value": float(2 * stats.t.sf(abs(effect) / se, k - 1))}


def depth_length_gee(items: pd.DataFrame, value: str = "judge_correct", cluster: str = "qa_id",
                     depth: str = "depth", length: str = "context_tokens") -> pd.DataFrame:
    """Logistic GEE of a yes/no outcome on depth (per 100 %: top to bottom) and log2 length (per doubling),
    exchangeable within clusters, with cluster-robust 95 % CIs as odds ratios. A term that does not vary is
    left out; too few clusters or outcomes all alike give an empty table."""
    # The GEE's own modules, not statsmodels.api: that imports every model statsmodels has (0.8 s more per notebook)
    from statsmodels.genmod import cov_struct, families
    from statsmodels.genmod.generalized_estimating_equations import GEE
    from statsmodels.tools import add_constant

    columns = ["term", "odds_ratio", "lo", "hi", "p_value", "n_items", "n_clusters"]
    if not {value, cluster, depth, length} <= set(items.columns):  # every call failed: nothing was judged
        return pd.DataFrame(columns=columns)
    data = items[[value, cluster, depth, length]].dropna()
    data = data.assign(y=data[value].astype(float), depth_100=data[depth].astype(float) / 100,
                       log2_length=np.log2(data[length].astype(float)))
    terms = [t for t in ("depth_100", "log2_length") if data[t].nunique() > 1]
    if not terms or data["y"].nunique() < 2 or data[cluster].nunique() < 3:
        return pd.DataFrame(columns=columns)
    model = GEE(data["y"], add_constant(data[terms]), groups=data[cluster], family=families.Binomial(),
                cov_struct=cov_struct.Exchangeable())
    fit = model.fit()
    ci = fit.conf_int()
    return pd.DataFrame([{"term": t, "odds_ratio": math.exp(fit.params[t]), "lo": math.exp(ci.loc[t, 0]),
                          "hi": math.exp(ci.loc[t, 1]), "p_value": float(fit.pvalues[t]), "n_items": len(data),
                          "n_clusters": int(data[cluster].nunique())} for t in terms])
