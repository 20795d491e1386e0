"""09's tables in RULER's shape, and the value kind as an axis of the lab's needle tasks.

RULER reports each task's score (x 100) per length and their unweighted mean over the tasks, and calls a model's
effective length the longest length whose mean is at or above 85.6 (Llama-2-7B's at 4k). Here that mean is RULER's
own, each task weighing the same whatever its number of haystacks, with a bootstrap interval that resamples each
task's haystacks within the task (a haystack, read at every length, is the independent unit); the effective
length reads the same mean, with the same resampling. RULER's two QA tasks read SQuAD and HotpotQA, which no
installable package ships: the lab's stand-ins (qa_1_pg, qa_2_pg) are other tasks, so they are never inside the
average. It is RULER's 11-task average without QA, named so; the stand-ins stand beside it in the task table
under their own names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ..stats.effective_length import MIN_PAIRS, RULER_THRESHOLD, effective_length_ci
from .ruler import RULER_TASKS

QA_STAND_INS = tuple(t for t, spec in RULER_TASKS.items() if spec.family == "qa")  # other data than RULER's
CORE_TASKS = len(RULER_TASKS) - len(QA_STAND_INS)


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
    every = items[items["task"].isin(RULER_TASKS)].dropna(subset=["score"])
    part = every[~every["task"].isin(QA_STAND_INS)]
    if part.empty:
        return {}
    by_task = (every.pivot_table(index="task", columns="context_tokens", values="score", aggfunc="mean") * 100).round(1)
    by_task = by_task.reindex([t for t in RULER_TASKS if t in by_task.index]).reset_index()
    per = part.groupby(["task", "cluster", "context_tokens"])["score"].mean().reset_index()  # one per haystack
    tasks = part["task"].nunique()
    name = (f"RULER {CORE_TASKS}-task average (no QA)" if tasks == CORE_TASKS else
            f"mean of {tasks} of RULER's {CORE_TASKS} non-QA tasks (no QA)")
    rows = []
    for length, cell in per.groupby("context_tokens"):
        got = mean_of_tasks([g["score"].to_numpy(dtype=float) for _, g in cell.groupby("task")])
        rows.append({"average": name, "context_tokens": length, "tasks": cell["task"].nunique(), "haystacks": len(cell),
                     "mean_x100": 100 * got["mean"], "lo_x100": 100 * got["lo"], "hi_x100": 100 * got["hi"],
                     "at_or_above_85.6": bool(got["mean"] >= RULER_THRESHOLD)})
    table = pd.DataFrame(rows)
    # RULER's effective length reads the same unweighted mean of the tasks; its interval resamples each task's
    # haystacks within the task.
    effective = effective_length_ci(part, value="score", cluster="cluster", absolute=RULER_THRESHOLD,
                                    stratum="task")
    enough = effective["n_pairs"] >= MIN_PAIRS and len(table) > 1
    table["effective_length"] = effective["effective_length"] if enough else np.nan
    table["effective_lo"] = effective["lo"] if enough else np.nan
    table["effective_hi"] = effective["hi"] if enough else np.nan
    beside = sorted(set(every["task"]) & set(QA_STAND_INS))
    table["note"] = (f"{name}; " + (f"{', '.join(beside)} (the lab's QA stand-ins) beside it in ruler_by_task, not "
                                    "in it; " if beside else "") +
                     f"RULER's effective length ({name} >= {100 * RULER_THRESHOLD:.1f}): "
                     + (f"{effective['effective_length']:.0f} [bootstrap 95 % CI {effective['lo']:.0f}, "
                        f"{effective['hi']:.0f}] over {effective['n_pairs']} haystacks, resampled within tasks"
                        if enough and not np.isnan(effective["effective_length"]) else
                        "none of the lengths" if enough else
                        f"not estimated ({effective['n_pairs']} haystacks; it needs {MIN_PAIRS} and two "
                        "lengths)"))
    return {"ruler_by_task": by_task, "ruler": table}


def mean_of_tasks(scores: list[np.ndarray], n_resamples: int = 2000) -> dict:
    """RULER's average at one length: the unweighted mean of the tasks' mean scores (`scores`: each task's haystack
    scores), with a 95 % percentile interval from scipy's bootstrap resampling each task's haystacks within the
    task (one sample per task); the point itself where no task's haystacks vary, NaN where none has two."""
    point = float(np.mean([s.mean() for s in scores]))
    if not any(len(s) >= 2 for s in scores):
        return {"mean": point, "lo": np.nan, "hi": np.nan}
    if not any(np.ptp(s) > 0 for s in scores):
        return {"mean": point, "lo": point, "hi": point}
    result = stats.bootstrap(scores, lambda *xs, axis=-1: np.mean([x.mean(axis=axis) for x in xs], axis=0),
                             vectorized=True, paired=False, method="percentile", n_resamples=n_resamples,
                             random_state=0)
    return {"mean": point, "lo": float(result.confidence_interval.low), "hi": float(result.confidence_interval.high)}
