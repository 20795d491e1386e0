"""Notebook 03's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import param


@dataclass
class Parameters:
    models: list = param(
        ["local/qwen2.5-coder-1.5b", "local/qwen2.5-coder-0.5b"],
        "(models) every model scores every point")
    corpus: str = param("paul_graham", "\"paul_graham\" or a folder of .txt/.md files")
    questions_path: str = param("data/pg_questions/questions.csv", "hand-written questions with golden answers")
    labels_path: str = param("data/pg_questions/discrete_labels.csv", "manual labels of the points")
    n_questions: int = param(15, "(at least 0) the first n questions, as in the seed; 0 means all")
    question_ids: list = param(
        [], "only these questions (ids of questions_path, e.g. [\"pgq-03\"]); empty means every question, "
            "n_questions then takes the first of them")
    store: str = param(
        "chroma",
        "\"chroma\" (embedded, in the run folder), \"chroma://HOST:PORT\", \"elasticsearch\", \"pinecone\"")
    embedder: str = param(
        "local/all-MiniLM-L6-v2",
        "embedding model spec; another one retrieves other points (unlabelled)")
    chunk_chars: int = param(2000, "(at least 100) chunk size in characters, as in the seed")
    top_k: int = param(5, "(at least 2) chunks retrieved per question")
    n_positive: int = param(2, "(at least 1) the first chunks, joined, make the positive candidate")
    n_negative: int = param(2, "(at least 1) the last chunks, joined, make the negative candidate")
    require_logprobs: bool = param(
        False,
        "True stops at once on a backend without logprobs instead of using the sampled token")
    max_workers: int = param(1, "(at least 1) concurrent requests: raise for remote endpoints")
    run_name: str = param("default", "results/pg_discrete/<run_name>/, figures/pg_discrete_<run_name>.png")
