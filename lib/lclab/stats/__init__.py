"""Proportions with confidence intervals, and per-cell summaries of tidy results."""

from __future__ import annotations

import math

import pandas as pd

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (nan, nan) when n == 0.

    Chosen over the normal approximation because cells here are small (5-20
    items) and accuracies sit near 0 or 1, where the normal interval leaves [0, 1].
    """
    if n == 0:
        return math.nan, math.nan
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At 0 or n successes the bound is exactly 0 or 1; the formula lands a rounding error away (5.6e-17 for 0 of
    # 3, 0.9999999999999999 for 10 of 10), which put the point outside its own interval and "lo > 0" true.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def p_text(p: float) -> str:
    """A p-value as a reader quotes it: two significant digits, and no "p = 0.00" for a small one."""
    if p != p:  # NaN: no test was possible
        return "no test"
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def interval_verdict(lo: float, hi: float) -> str:
    """What a paired difference's interval says of the first scorer against the second: "beats" (above 0),
    "loses to" (below 0), "ties with" (it holds 0), "cannot be compared with" (no interval); never the point."""
    if math.isnan(lo) or math.isnan(hi):
        return "cannot be compared with"
    return "beats" if lo > 0 else "loses to" if hi < 0 else "ties with"


def proportion_summary(df: pd.DataFrame, by: list[str], column: str, prefix: str) -> pd.DataFrame:
    """Per group: n (non-missing values of `column`), accuracy, 95 % CI, and how many were missing. Where rows
    carry the answering model's `response`, a row with no answer is counted as `<prefix>_failed` (its answer
    failed), not as missing: `<prefix>_missing` is then an answer that could not be scored."""
    rows = []
    if column not in df:  # every row failed before this column was written: all missing
        df = df.assign(**{column: None})
    for key, group in df.groupby(by, sort=True):
        values = group[column].dropna().astype(bool)
        k, n = int(values.sum()), int(len(values))
        lo, hi = wilson_interval(k, n)
        unscored = group[column].isna()
        answered = group["response"].notna() if "response" in group else pd.Series(True, index=group.index)
        rows.append({
            **dict(zip(by, key if isinstance(key, tuple) else (key,))),
            f"{prefix}_n": n,
            f"{prefix}_acc": k / n if n else math.nan,
            f"{prefix}_lo": lo,
            f"{prefix}_hi": hi,
            f"{prefix}_missing": int((unscored & answered).sum()),
            **({f"{prefix}_failed": int((unscored & ~answered).sum())} if "response" in group else {}),
        })
    return pd.DataFrame(rows)


def bootstrap_mean_ci(values, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval for a mean; (nan, nan) for no values, (v, v) for one.

    Used for means of non-binary scores (recall with three reference chunks,
    nDCG) where a binomial interval does not apply; seeded, so it reproduces.
    """
    import numpy as np

    values = np.asarray([v for v in values if v is not None and not pd.isna(v)], dtype=float)
    if len(values) == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = values[rng.integers(0, len(values), size=(n_boot, len(values)))].mean(axis=1)
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


# -- agreement, paired effects, power ------------------------------------------------------------

def cohen_kappa(a, b) -> float:
    """Cohen's κ of two binary raters; NaN when either rater never varies.

    A rater who gives one answer throughout agrees with the other exactly as often as chance predicts, so κ
    is 0 by construction, whatever the other does: it says nothing, and a bootstrap replicate that happens
    to draw one class only must not pull the interval to 0 (it is left out instead).

    Computed by statsmodels from the 2 x 2 table (what scikit-learn's cohen_kappa_score gives, at a twentieth of
    its time: a bootstrap asks for it thousands of times)."""
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa

    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    if len(a) == 0 or a.min() == a.max() or b.min() == b.max():
        return math.nan
    if min(a.min(), b.min()) < 0 or max(a.max(), b.max()) > 1:
        raise ValueError("Cohen's kappa here is of two binary raters (labels 0 and 1)")
    return float(cohens_kappa(np.bincount(2 * a + b, minlength=4).reshape(2, 2), return_results=False))


def bootstrap_ci(statistic, *columns, clusters=None, n_boot: int = 2000, seed: int = 0, level: float = 0.95
                 ) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic(*columns)`, resampling rows (items) together, or, given
    `clusters` (each row's independent unit: a QA pair, a document), whole clusters with all their rows.

    Replicates where the statistic is undefined (NaN) are left out; the interval
    is NaN when fewer than half of them are defined.
    """
    import numpy as np

    arrays = [np.asarray(c) for c in columns]
    n = len(arrays[0])
    if n == 0:
        return math.nan, math.nan
    if clusters is not None:
        from .card import _codes

        codes, k = _codes(clusters)
        groups = [np.flatnonzero(codes == c) for c in range(k)]
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        if clusters is None:
            idx = rng.integers(0, n, n)
        else:
            idx = np.concatenate([groups[g] for g in rng.integers(0, len(groups), len(groups))])
        values.append(statistic(*(c[idx] for c in arrays)))
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if len(values) < n_boot / 2:
        return math.nan, math.nan
    alpha = (1 - level) / 2
    return float(np.quantile(values, alpha)), float(np.quantile(values, 1 - alpha))


def kappa_with_ci(a, b, clusters=None) -> dict:
    """κ of two binary raters with a bootstrap 95 % CI over items, or over `clusters` where the items are not
    independent (several answers to one QA pair), and their raw agreement."""
    import numpy as np

    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    lo, hi = bootstrap_ci(cohen_kappa, a, b, clusters=clusters)
    return {"agreement": float((a == b).mean()) if len(a) else math.nan, "kappa": cohen_kappa(a, b),
            "kappa_lo": lo, "kappa_hi": hi}


def mcnemar_exact(a, b) -> float:
    """Two-sided exact McNemar p-value for paired binary outcomes (a, b per item): a binomial test on the
    discordant pairs; 1.0 when there are none."""
    import numpy as np
    from statsmodels.stats.contingency_tables import mcnemar

    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    if table[0][1] + table[1][0] == 0:
        return 1.0
    return float(mcnemar(table, exact=True).pvalue)


def sign_flip_p(differences) -> float:
    """Two-sided paired permutation test of mean difference 0: every sign flip (exact up to 2^16 items,
    else 20,000 seeded random flips)."""
    import numpy as np
    from scipy.stats import permutation_test

    d = np.asarray(differences, dtype=float)
    if len(d) == 0 or np.allclose(d, 0):
        return 1.0
    result = permutation_test((d,), np.mean, permutation_type="samples", alternative="two-sided",
                              n_resamples=20_000 if len(d) > 16 else np.inf, random_state=0)
    return float(result.pvalue)


def paired_effect(a, b, binary: bool = True) -> dict:
    """Mean of a − b over items measured both ways, each item its own cluster: the t interval and t test of
    `clusters.cluster_paired_effect` (the same numbers notebook 08 prints for the same contrast). Items with a
    missing side are left out and counted. `binary` is kept for the callers' labels; yes/no outcomes and scores
    are tested alike (a paired t on 0/1 differences is McNemar's test without its continuity correction)."""
    import numpy as np

    from .clusters import cluster_paired_effect

    a = np.asarray([math.nan if v is None else v for v in a], dtype=float)
    b = np.asarray([math.nan if v is None else v for v in b], dtype=float)
    both = ~np.isnan(a) & ~np.isnan(b)
    diff = a[both] - b[both]
    r = cluster_paired_effect(a[both], b[both], np.arange(len(diff)))
    lo, hi = (float(diff[0]), float(diff[0])) if len(diff) == 1 else (r["effect_lo"], r["effect_hi"])
    return {"n_pairs": int(len(diff)), "left_out": int((~both).sum()), "effect": r["effect"],
            "effect_lo": lo, "effect_hi": hi, "p_value": r["p_value"],
            "sd_diff": float(diff.std(ddof=1)) if len(diff) > 1 else math.nan}


def pairs_needed(sd_diff: float, effect: float = 0.10, power: float = 0.80, alpha: float = 0.05) -> float:
    """How many paired items a two-sided paired t-test needs to detect `effect` with `power`, given the
    standard deviation of the per-item differences (inf when it is undefined, 1 when it is 0)."""
    from statsmodels.stats.power import TTestPower

    if sd_diff is None or math.isnan(sd_diff):
        return math.inf
    if sd_diff == 0:
        return 1.0
    return float(math.ceil(TTestPower().solve_power(effect_size=effect / sd_diff, power=power, alpha=alpha,
                                                    alternative="two-sided")))


def power_line(sd_diff: float, n_now: int, what: str, effect: float = 0.10) -> str:
    """One sentence a reader can act on: how many items a 10-point effect needs at 80 % power."""
    needed = pairs_needed(sd_diff, effect)
    if sd_diff == 0:
        return (f"power: every paired difference in this run is the same (SD 0), so the variance a power line needs "
                f"cannot be estimated from it (n = {n_now} {what})")
    if math.isinf(needed):
        return f"power: too few {what} to estimate the variance of the paired differences (n = {n_now})"
    return (f"power: with the observed SD of the paired differences ({sd_diff:.2f}), a {effect * 100:.0f}-point "
            f"effect needs about {needed:.0f} {what} for 80 % power (paired, two-sided, α = 0.05); "
            f"this run has {n_now}")
