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
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion_summary(df: pd.DataFrame, by: list[str], column: str, prefix: str) -> pd.DataFrame:
    """Per group: n (non-missing values of `column`), accuracy, 95 % CI, and how many were missing."""
    rows = []
    if column not in df:  # every row failed before this column was written: all missing
        df = df.assign(**{column: None})
    for key, group in df.groupby(by, sort=True):
        values = group[column].dropna().astype(bool)
        k, n = int(values.sum()), int(len(values))
        lo, hi = wilson_interval(k, n)
        rows.append({
            **dict(zip(by, key if isinstance(key, tuple) else (key,))),
            f"{prefix}_n": n,
            f"{prefix}_acc": k / n if n else math.nan,
            f"{prefix}_lo": lo,
            f"{prefix}_hi": hi,
            f"{prefix}_missing": int(group[column].isna().sum()),
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
