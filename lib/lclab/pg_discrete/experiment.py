"""Notebook 03 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

import pandas as pd

from ..experiments import Experiment, Series, register
from ..planning.plan import planned_embeddings
from ..planning.priced import estimated, template_prompt_tokens, text_tokens
from ..retrieval.chunking import Chunker
from ..runs.declared import declared
from ..text.corpus import load_corpus
from .points import CHUNK_SEPARATOR, chosen_questions, load_questions
from .parameters import Parameters
from .run import EXPERIMENT, SCORE_STAGE, run_discrete


def plan(notebook: str, given: dict) -> list[dict]:
    """The corpus indexed and every question searched with (the embedding stage, counted exactly), then one
    one-token scoring call per point (a positive and a negative candidate per question), per model: each prompt
    its template with the question and golden answer, the context n of the corpus's own chunks at their mean size
    (which chunks is retrieval's choice, an embedding model not run for a plan)."""
    p = declared(Parameters, given)
    loaded = load_corpus(p.corpus)
    questions = load_questions(p.questions_path, {d.id: d.text for d in loaded.documents})
    questions = chosen_questions(questions, p.n_questions, p.question_ids)
    chunks = Chunker(p.chunk_chars, "chars").split(loaded.documents)
    embedded = planned_embeddings(notebook, p.embedder, [c.text for c in chunks] + list(questions["question"]))
    rows = [embedded]
    for model in p.models:
        chunk = text_tokens(model, [c.text + CHUNK_SEPARATOR for c in chunks])
        prompts = [template_prompt_tokens(model, "context_contains_answer", {"context": n * chunk},
                                          question=q.question, golden_answer=q.golden_answer)
                   for q in questions.itertuples() for n in (p.n_positive, p.n_negative)]
        rows.append(estimated(notebook, SCORE_STAGE, model, prompts, 1, "one token"))
    return rows


def scorable(rows: pd.DataFrame) -> pd.DataFrame:
    """Points a reader found ambiguous are not scored against a label."""
    return rows[~rows["ambiguous"].fillna(False).astype(bool)] if "ambiguous" in rows else rows


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=run_discrete, notebook="03_pg_discrete_retrieval", plan=plan, parameters=Parameters,
    comparable=("corpus", "questions_path", "labels_path", "n_questions", "question_ids", "store", "embedder",
                "chunk_chars", "top_k", "n_positive", "n_negative"),
    series=Series(key=("point_id",), value="weighted", split=("model",), binary=False, label="label",
                  prepare=scorable, cluster="question_id", unit="questions"),
    description="Does the retrieved context contain the golden answer? Logprob-weighted scores vs labels"))
