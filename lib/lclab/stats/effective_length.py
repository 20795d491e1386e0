"""Effective length: the longest context at which accuracy stays at or above a threshold, with a bootstrap CI
over clusters. Two thresholds:

- relative (NoLiMa's): 85 % of the model's own short-context score, read here at the shortest length tried
  (NoLiMa averages its shortest lengths, 250 to 1K tokens; with one length at or below 1K the two agree);
- absolute (RULER's): 85.6 %, Llama-2-7B's score at 4K in RULER, whatever the model's own short score."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from . import wilson_interval

THRESHOLD = 0.85
RULER_THRESHOLD = 0.856
VALUE = "judge_correct"


def accuracy_by_length(items: pd.DataFrame, value: str = VALUE) -> pd.DataFrame:
    """Per context length, pooled over depths: judge accuracy with a Wilson 95 % CI."""
    rows = []
    if VALUE not in items:
        return pd.DataFrame(columns=["context_tokens", "n", "acc", "lo", "hi"])
    for length, part in items.groupby("context_tokens"):
        values = part[value].dropna().astype(bool) if value in part else part.iloc[:0, :0]
        lo, hi = wilson_interval(int(values.sum()), len(values))
        rows.append({"context_tokens": length, "n": len(values), "acc": values.mean() if len(values) else math.nan,
                     "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


def effective_length(accuracy: dict[int, float], threshold: float = THRESHOLD, absolute: float | None = None
                     ) -> float:
    """The longest length L such that every length up to L keeps accuracy >= threshold x the shortest
    length's; NaN when the shortest length's accuracy is 0 or unknown (nothing to keep). With `absolute`, the
    bar is that accuracy instead (RULER's), and NaN means not even the shortest length reaches it."""
    lengths = sorted(accuracy)
    if not lengths:
        return math.nan
    row = np.array([[accuracy[n] for n in lengths]], dtype=float)
    return float(effective_length_rows(row, lengths, threshold, absolute)[0])


def effective_length_rows(accuracy: np.ndarray, lengths: list[int], threshold: float = THRESHOLD,
                          absolute: float | None = None) -> np.ndarray:
    """`effective_length` of every row of `accuracy` (rows: resamples; columns: `lengths`, ascending) at once, so
    that a bootstrap of thousands of resamples costs array operations, not a Python loop."""
    base = accuracy[:, 0]
    bar = np.full_like(base, absolute) if absolute is not None else threshold * base
    with np.errstate(invalid="ignore"):
        undefined = np.isnan(base) | (base == 0) | (base < bar)
        kept = accuracy >= bar[:, None]  # NaN compares False: an unknown length ends the run of kept lengths
    kept[:, 0] = True
    run = np.cumprod(kept, axis=1).sum(axis=1) - 1  # the last length of the unbroken run from the shortest
    out = np.asarray(lengths, dtype=float)[run]
    out[undefined] = np.nan
    return out


def effective_length_ci(items: pd.DataFrame, n_boot: int = 2000, seed: int = 0, value: str = VALUE,
                        cluster: str = "qa_id", absolute: float | None = None, stratum: str | None = None) -> dict:
    """Effective length with a percentile bootstrap 95 % CI, resampling clusters (QA pairs, haystacks: all their
    cells together). `value`: yes/no or a score in [0, 1]; `absolute`: RULER's fixed bar instead of 85 % of the
    shortest length's score; `stratum`: a column fixed per cluster (RULER's task) within which clusters are
    resampled, so every resample keeps each stratum's number of clusters (the mix of tasks is not random), and the
    score per length is the unweighted mean of the strata's own means (RULER's average over its tasks: a task with
    fewer haystacks weighs as much as one with more)."""
    if value not in items or items["context_tokens"].nunique() < 2:
        return {"effective_length": math.nan, "lo": math.nan, "hi": math.nan, "base_accuracy": math.nan,
                "n_pairs": int(items[cluster].nunique()) if cluster in items else 0}
    table = (items.dropna(subset=[value]).assign(v=lambda d: d[value].astype(float))
             .pivot_table(index=cluster, columns="context_tokens", values="v", aggfunc="sum"))
    counts = (items.dropna(subset=[value]).pivot_table(index=cluster, columns="context_tokens", values=value,
                                                        aggfunc="count"))
    # Plain arrays: the bootstrap sums rows thousands of times, and pandas indexing would dominate its cost.
    table, counts = table.sort_index(axis=1), counts.reindex(index=table.index, columns=sorted(table.columns))
    hits_by, counts_by = table.fillna(0).to_numpy(), counts.fillna(0).to_numpy()
    lengths = [int(c) for c in table.columns]

    everything = np.arange(len(table))
    if stratum is None:
        groups = [everything]
    else:
        of = items.drop_duplicates(cluster).set_index(cluster)[stratum].reindex(table.index)
        groups = [everything[(of == s).to_numpy()] for s in of.unique()]
    ends = np.cumsum([len(g) for g in groups])
    slices = list(zip(np.concatenate([[0], ends[:-1]]), ends))  # each stratum's columns of a resample

    def estimates(rows: np.ndarray) -> np.ndarray:
        """The effective length of each resample (a row of cluster indices, stratum by stratum) of `rows`."""
        means = []
        for a, b in slices:
            hits, n = hits_by[rows[:, a:b]].sum(axis=1), counts_by[rows[:, a:b]].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                means.append(np.where(n > 0, hits / np.where(n > 0, n, 1), np.nan))
        with warnings.catch_warnings():  # a length no stratum reached: NaN, said by the caller
            warnings.simplefilter("ignore", RuntimeWarning)
            accuracy = np.nanmean(np.stack(means), axis=0)
        return effective_length_rows(accuracy, lengths, absolute=absolute)

    point = float(estimates(np.concatenate(groups)[None, :])[0])
    rng = np.random.default_rng(seed)
    # Every resample at once (one draw per stratum), then read in blocks.
    resamples = np.concatenate([g[rng.integers(0, len(g), size=(n_boot, len(g)))] for g in groups], axis=1)
    block = max(1, 4_000_000 // max(1, resamples.shape[1] * len(lengths)))  # keeps each block's array small
    draws = np.concatenate([estimates(resamples[i:i + block]) for i in range(0, n_boot, block)]) if n_boot else \
        np.array([])
    draws = draws[~np.isnan(draws)]
    lo, hi = (float(np.quantile(draws, 0.025)), float(np.quantile(draws, 0.975))) if len(draws) else (math.nan,) * 2
    if math.isnan(point):  # undefined here: the resamples where it happens to be defined are no interval for it
        lo = hi = math.nan
    base = items[items["context_tokens"] == items["context_tokens"].min()][value].dropna().astype(float).mean()
    return {"effective_length": point, "lo": lo, "hi": hi, "base_accuracy": base, "n_pairs": len(table)}


MIN_PAIRS = 10  # QA pairs per length below which the effective length is not reported


def length_note(result: dict, lengths: list[int]) -> str:
    if len(lengths) < 2:
        return "effective length: one context length only (give several in context_tokens to measure it)"
    if result.get("n_pairs", MIN_PAIRS) < MIN_PAIRS:
        # With n pairs the bootstrap has few distinct resamples (3 at n = 2), and one flipped answer moves the
        # threshold: the number would be an artifact, so it is not given.
        return (f"effective length: not estimated from {result['n_pairs']} QA pairs per length (at least "
                f"{MIN_PAIRS} are needed for its interval to say anything)")
    if math.isnan(result["effective_length"]):
        return "effective length: undefined (no correct answer at the shortest length)"
    return (f"effective length (accuracy >= {THRESHOLD:.0%} of the {min(lengths)}-token accuracy "
            f"{result['base_accuracy']:.2f}): {result['effective_length']:.0f} tokens "
            f"[bootstrap 95 % CI {result['lo']:.0f}, {result['hi']:.0f}] of {max(lengths)} tried")
