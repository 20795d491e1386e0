"""Retrieval metrics over ranked chunk ids, as pure functions.

Conventions, the same for every metric here:
- `retrieved` is in rank order. A repeated id counts once, at its first rank
  (later copies are dropped before anything is computed), so a store that
  returns a chunk twice gains nothing from it.
- Only the first k (deduplicated) ids count. When fewer than k were retrieved,
  precision still divides by k: the missing slots are not relevant answers.
- With no relevant ids the metrics are undefined and return None, never 0, so
  that averages can leave such queries out and say how many there were.
- k must be a positive integer (k = 0 is a ValueError: nothing is measured).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence


def _top(retrieved: Sequence[str], k: int) -> list[str]:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    seen, top = set(), []
    for chunk in retrieved:
        if chunk not in seen:
            seen.add(chunk)
            top.append(chunk)
            if len(top) == k:
                break
    return top


def _hits(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> tuple[list[str], set[str], int] | None:
    relevant = set(relevant)
    top = _top(retrieved, k)
    if not relevant:
        return None
    return top, relevant, sum(c in relevant for c in top)


def recall_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float | None:
    """Share of the relevant ids among the top k."""
    got = _hits(retrieved, relevant, k)
    return None if got is None else got[2] / len(got[1])


def precision_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float | None:
    """Share of the k slots filled by relevant ids."""
    got = _hits(retrieved, relevant, k)
    return None if got is None else got[2] / k


def f1_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float | None:
    """Harmonic mean of precision@k and recall@k (0 when both are 0)."""
    p, r = precision_at_k(retrieved, relevant, k), recall_at_k(retrieved, relevant, k)
    if p is None or r is None:
        return None
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def hit_rate_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float | None:
    """1 when any relevant id is among the top k, else 0."""
    got = _hits(retrieved, relevant, k)
    return None if got is None else float(got[2] > 0)


def reciprocal_rank(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float | None:
    """1 / rank of the first relevant id within the top k (0 when none); its mean is MRR@k."""
    got = _hits(retrieved, relevant, k)
    if got is None:
        return None
    top, rel, _ = got
    return next((1.0 / rank for rank, c in enumerate(top, start=1) if c in rel), 0.0)


def ndcg_at_k(retrieved: Sequence[str], relevant: Iterable[str], k: int) -> float | None:
    """Binary-relevance nDCG: DCG of the top k over the DCG of an ideal ranking."""
    got = _hits(retrieved, relevant, k)
    if got is None:
        return None
    top, rel, _ = got
    dcg = sum(1.0 / math.log2(rank + 1) for rank, c in enumerate(top, start=1) if c in rel)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(rel)) + 1))
    return dcg / ideal


METRICS = {
    "recall": recall_at_k,
    "precision": precision_at_k,
    "f1": f1_at_k,
    "hit_rate": hit_rate_at_k,
    "mrr": reciprocal_rank,
    "ndcg": ndcg_at_k,
}


def scores_at(retrieved: Sequence[str], relevant: Iterable[str], ks: Iterable[int]) -> list[dict]:
    """Every metric at every k, as rows {"k", "recall", "precision", ...}."""
    relevant = set(relevant)
    return [{"k": k, **{name: fn(retrieved, relevant, k) for name, fn in METRICS.items()}} for k in ks]
