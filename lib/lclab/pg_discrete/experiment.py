"""Notebook 03 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

import pandas as pd

from ..experiments import Experiment, Series, register
from ..planning.plan import CHARS_PER_TOKEN, planned_embeddings, row
from ..retrieval.chunking import Chunker
from ..text.corpus import load_corpus
from .points import load_questions
from .parameters import Parameters
from .run import EXPERIMENT

SCORING_TEMPLATE_TOKENS = 120  # the scoring prompt around the chunks and the candidate


def plan(notebook: str, p: dict) -> list[dict]:
    """The corpus indexed and every question searched with (the embedding stage, counted exactly), then one
    one-token scoring call per point (a positive and a negative candidate per question), per model."""
    loaded = load_corpus(p["corpus"])
    questions = load_questions(p["questions_path"], {d.id: d.text for d in loaded.documents})
    questions = questions.head(p["n_questions"]) if p["n_questions"] else questions
    chunks = Chunker(p["chunk_chars"], "chars").split(loaded.documents)
    embedded = planned_embeddings(notebook, p["embedder"], [c.text for c in chunks] + list(questions["question"]))
    points = 2 * len(questions)
    prompt = (p["n_positive"] + p["n_negative"]) / 2 * p["chunk_chars"] / CHARS_PER_TOKEN + SCORING_TEMPLATE_TOKENS
    return [embedded] + [row(notebook, "score (estimated tokens)", m, points, 0, points * prompt, points)
                         for m in p["models"]]


def scorable(rows: pd.DataFrame) -> pd.DataFrame:
    """Points a reader found ambiguous are not scored against a label."""
    return rows[~rows["ambiguous"].fillna(False).astype(bool)] if "ambiguous" in rows else rows


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="03_pg_discrete_retrieval", plan=plan, parameters=Parameters,
    comparable=("corpus", "questions_path", "labels_path", "n_questions", "store", "embedder", "chunk_chars",
                "top_k", "n_positive", "n_negative"),
    series=Series(key=("point_id",), value="weighted", split=("model",), binary=False, label="label",
                  prepare=scorable, cluster="question_id", unit="questions"),
    description="Does the retrieved context contain the golden answer? Logprob-weighted scores vs labels"))
