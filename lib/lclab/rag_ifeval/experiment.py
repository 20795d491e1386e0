"""Notebook 07 as one registered experiment: its samples, its one stage asked of every model (planned by the
generic planner, one row per model), and how its runs are compared."""

from __future__ import annotations

import pandas as pd

from ..experiments import Experiment, Series, register
from .parameters import Parameters
from .rules import METRICS, SCORES
from .run import EXPERIMENT, arms, prepare, run_rag_ifeval
from .stages import ANSWER


def with_total(rows: pd.DataFrame) -> pd.DataFrame:
    """Per sample, the total: the mean of its pooled condition scores (the unit compared is the sample)."""
    if len(rows):
        pooled = [c for c in METRICS["total"] if c in rows]
        rows = rows.assign(total=rows[pooled].mean(axis=1, skipna=True))
    return rows


def every_measure(rows: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """Every condition and pooled measure of a series, not only the total (SCORES ends with the total)."""
    return [(m, rows[m]) for m in SCORES if m in rows]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=run_rag_ifeval, notebook="07_rag_ifeval", parameters=Parameters, prepare=prepare,
    stages=(ANSWER,), arms=arms,
    comparable=("docs_path", "eval_path", "shuffle_context", "shuffle_seed", "refusal_message", "n_samples",
                "badwords_path"),
    series=Series(key=("id",), value="total", split=("model",), binary=False, x_label="condition or measure",
                  value_label="RAG-IFEval score (mean over samples)",
                  prepare=with_total, cells=every_measure, cluster="id", unit="samples"),
    description="RAG-IFEval: rule-based scores of RAG answers in Polish (include, exclude, cite, refuse, safe)"))
