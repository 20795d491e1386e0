"""Notebook 03 as one registered experiment: its samples and its one stage, each point's one-token score by
every model (planned by the generic planner: the context is what retrieval finds), and how its runs are compared."""

from __future__ import annotations

import pandas as pd

from ..experiments import Experiment, Series, register
from ..pipeline import each_model
from .parameters import Parameters
from .run import EXPERIMENT, SCORE, prepare, read_inputs, run_discrete


def embedded(p: Parameters, sets: list) -> list[str]:
    """The corpus indexed and every question searched with."""
    _, questions, _, chunks = read_inputs(p)
    return [c.text for c in chunks] + list(questions["question"])


def scorable(rows: pd.DataFrame) -> pd.DataFrame:
    """Points a reader found ambiguous are not scored against a label."""
    return rows[~rows["ambiguous"].fillna(False).astype(bool)] if "ambiguous" in rows else rows


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=run_discrete, notebook="03_pg_discrete_retrieval", parameters=Parameters, prepare=prepare,
    stages=(SCORE,), arms=each_model, embedded=embedded,
    comparable=("corpus", "questions_path", "labels_path", "n_questions", "question_ids", "store", "embedder",
                "chunk_chars", "top_k", "n_positive", "n_negative"),
    series=Series(key=("point_id",), value="weighted", split=("model",), binary=False, label="label",
                  prepare=scorable, cluster="question_id", unit="questions"),
    description="Does the retrieved context contain the golden answer? Logprob-weighted scores vs labels"))
