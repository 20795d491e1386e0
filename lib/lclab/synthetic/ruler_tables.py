"""09's tables in RULER's shape, and the value kind as an axis of the lab's needle tasks.

RULER reports each task's score (x 100) per length and their mean over the tasks, and calls a model's effective
length the longest length whose mean is at or above 85.6 (Llama-2-7B's at 4k). Here the mean over tasks per
length comes with a t interval over haystack indices (haystack i of every task averaged), and the effective
length of that mean with a bootstrap interval that resamples each task's haystacks within the task (a haystack,
read at every length, is the independent unit: tasks x haystacks of them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.clusters import cluster_mean_ci
from ..stats.effective_length import MIN_PAIRS, RULER_THRESHOLD, effective_length_ci
from .ruler import RULER_TASKS


def with_value_kind(items: pd.DataFrame | None) -> pd.DataFrame | None:
    """The lab's needle tasks named with their value kind (`needle_single/numbers`), so that every table and the
    figure keep numbers, UUIDs and words apart; other tasks as they are."""
    if items is None or "value_kind" not in items or "task" not in items:
        return items
    kind = items["value_kind"]
    has = kind.notna() & (kind.astype(str) != "")
    return items.assign(task=items["task"].where(~has, items["task"] + "/" + kind.astype(str)))


def ruler_average(items: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """{"ruler_by_task": task x length, score x 100 (RULER's table), "ruler": per length the mean over RULER's
    tasks with its interval, the haystacks and tasks behind it, and the effective length by RULER's rule};
    nothing when the run has no RULER task."""
    if "score" not in items or "task" not in items:
        return {}
    part = items[items["task"].isin(RULER_TASKS)].dropna(subset=["score"])
    if part.empty:
        return {}
    by_task = (part.pivot_table(index="task", columns="context_tokens", values="score", aggfunc="mean") * 100).round(1)
    by_task = by_task.reindex([t for t in RULER_TASKS if t in by_task.index]).reset_index()
    per = (part.assign(cluster=part["cluster"].str.rsplit("-", n=1).str[1])
           .groupby(["cluster", "context_tokens"])["score"].mean().reset_index())
    rows = []
    for length, cell in per.groupby("context_tokens"):
        ci = cluster_mean_ci(cell["score"].to_numpy(dtype=float), cell["cluster"].to_numpy())
        rows.append({"context_tokens": length, "tasks": part.loc[part["context_tokens"] == length, "task"].nunique(),
                     "haystacks": ci["n_clusters"], "mean_x100": 100 * ci["mean"], "lo_x100": 100 * ci["lo"],
                     "hi_x100": 100 * ci["hi"], "at_or_above_85.6": bool(ci["mean"] >= RULER_THRESHOLD)})
    table = pd.DataFrame(rows)
    # RULER's effective length reads the mean over every task's haystacks (equal numbers per task: RULER's
    # unweighted mean of the tasks); its interval resamples each task's haystacks within the task.
    effective = effective_length_ci(part, value="score", cluster="cluster", absolute=RULER_THRESHOLD,
                                    stratum="task")
    enough = effective["n_pairs"] >= MIN_PAIRS and len(table) > 1
    table["effective_length"] = effective["effective_length"] if enough else np.nan
    table["effective_lo"] = effective["lo"] if enough else np.nan
    table["effective_hi"] = effective["hi"] if enough else np.nan
    table["note"] = (f"RULER's effective length (mean over tasks >= {100 * RULER_THRESHOLD:.1f}): "
                     + (f"{effective['effective_length']:.0f} [bootstrap 95 % CI {effective['lo']:.0f}, "
                        f"{effective['hi']:.0f}] over {effective['n_pairs']} haystacks, resampled within tasks"
                        if enough and not np.isnan(effective["effective_length"]) else
                        "none of the lengths" if enough else
                        f"not estimated ({effective['n_pairs']} haystacks; it needs {MIN_PAIRS} and two "
                        "lengths)"))
    return {"ruler_by_task": by_task, "ruler": table}
