"""Combinations of contexts (seed 002): a fact is covered when any context of the combination covers it.

Binary: a context covers a fact when its weighted score is >= 0.5. Soft:
1 - prod(1 - p), the chance that at least one context covers it if the
contexts were independent. A combination's score is the mean over facts; a
fact whose result hinges on a missing score is left out and counted.
"""

from __future__ import annotations

import itertools
import math

import pandas as pd


def context_combinations(context_ids: list[str], min_size: int = 2) -> list[tuple[str, ...]]:
    """Every combination of `min_size` or more contexts, smallest first (120 for 7 contexts from 2)."""
    return [combo for k in range(min_size, len(context_ids) + 1)
            for combo in itertools.combinations(context_ids, k)]


def or_binary(values: list[float | None]) -> float | None:
    """A fact is covered when any context scores it >= 0.5; unknown (None) when it hinges on a missing score."""
    if any(v is not None and v >= 0.5 for v in values):
        return 1.0
    if any(v is None for v in values):
        return None
    return 0.0


def or_soft(values: list[float | None]) -> float | None:
    """1 - prod(1 - p): the chance at least one context covers the fact, if the contexts were independent."""
    if any(v is None for v in values):
        return None
    return 1.0 - math.prod(1.0 - v for v in values)


def combination_score(fact_scores: dict[str, dict[str, float | None]], combo: tuple[str, ...], combine) -> tuple[float, int]:
    """Mean over facts of the OR-combined score; also how many facts were left out as unknown.

    `fact_scores` is {fact_id: {context_id: score}}.
    """
    values = [combine([per_context.get(c) for c in combo]) for per_context in fact_scores.values()]
    known = [v for v in values if v is not None]
    return (sum(known) / len(known) if known else math.nan), len(values) - len(known)


def combinations_table(scores: pd.DataFrame, context_ids: list[str]) -> pd.DataFrame:
    """All combinations with # golden, # noisy and the score for each fact style, binary and soft."""
    matrices = {style: {fid: dict(zip(g["context_id"], (None if pd.isna(p) else float(p) for p in g["p"])))
                        for fid, g in group.groupby("fact_id", sort=False)}
                for style, group in scores.groupby("style", sort=False)}
    rows = []
    for combo in context_combinations(context_ids):
        row = {"contexts": "+".join(combo), "size": len(combo),
               "n_golden": sum(c.startswith("G") for c in combo), "n_noisy": sum(c.startswith("N") for c in combo)}
        for style, matrix in matrices.items():
            for name, combine in (("binary", or_binary), ("soft", or_soft)):
                value, unknown = combination_score(matrix, combo, combine)
                row[f"{style}_{name}"] = value
                row[f"{style}_{name}_unknown"] = unknown
        rows.append(row)
    table = pd.DataFrame(rows)
    # Unknown-count columns only earn their place when something was unknown.
    empty = [c for c in table if c.endswith("_unknown") and not table[c].any()]
    return table.drop(columns=empty)


def per_context_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Each context alone: mean weighted score and share of facts >= 0.5, per fact style."""
    scored = scores.dropna(subset=["p"])
    out = scored.groupby(["context_id", "kind", "style"], sort=False)["p"].agg(
        mean_p="mean", covered=lambda s: float((s >= 0.5).mean()), facts="count").reset_index()
    return out.pivot_table(index=["context_id", "kind"], columns="style", values=["mean_p", "covered"]).round(3)
