"""09's closed-book arm read against its haystacks: which haystacks the model answers with no text, and the
reading gain per task (with the text − without, paired by haystack)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.clusters import cluster_paired_effect


def known_haystacks(closed: pd.DataFrame) -> set:
    """The haystacks whose every asked value the model gave with no text (score 1 closed-book)."""
    return set(closed.loc[closed["score"] == 1, "cluster"]) if "score" in closed else set()


def reading_gain(items: pd.DataFrame, closed: pd.DataFrame) -> pd.DataFrame:
    """Per task: the score with the text (every length and depth of a haystack), with none, and the difference
    paired by haystack with its cluster t interval (cut at ±1: a difference of shares says nothing beyond)."""
    columns = ["task", "haystacks", "with_text", "closed_book", "gain", "lo", "hi", "known_closed_book"]
    if "score" not in items or "score" not in closed:
        return pd.DataFrame(columns=columns)
    rows = []
    for task, part in items.dropna(subset=["score"]).groupby("task", sort=False):
        without = closed[closed["task"] == task].dropna(subset=["score"]).set_index("cluster")["score"]
        part = part[part["cluster"].isin(without.index)]
        if part.empty:
            continue
        gain = cluster_paired_effect(part["score"].to_numpy(dtype=float),
                                     part["cluster"].map(without).to_numpy(dtype=float), part["cluster"].to_numpy())
        rows.append({"task": task, "haystacks": gain["n_clusters"], "with_text": part["score"].mean(),
                     "closed_book": without.mean(), "gain": gain["effect"],
                     "lo": float(np.clip(gain["effect_lo"], -1, 1)), "hi": float(np.clip(gain["effect_hi"], -1, 1)),
                     "known_closed_book": int((without == 1).sum())})
    return pd.DataFrame(rows, columns=columns)
