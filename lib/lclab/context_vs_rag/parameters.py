"""Notebook 02's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import CARD_TEXTS, JUDGE_MODEL, param


@dataclass
class Parameters:
    model: str = param("local/qwen2.5-coder-1.5b", "(model) answering model (keys only from the environment)")
    judge_model: str = JUDGE_MODEL
    card_texts: int = CARD_TEXTS
    corpus: str = param("paul_graham", "\"paul_graham\" or a folder of .txt/.md files (must match qa_path's passages)")
    qa_path: str = param("data/pg_qa/qa.csv", "reviewed QA pairs; only rows marked yes in `validated` are used")
    n_qa: int = param(14, "(at least 1) QA pairs to use, in file order (the shipped file has 14 validated)")
    context_tokens: int = param(
        1500,
        "(tokens) budget of the full (100 %) set as a long-context prompt, in the model's tokens")
    noise_levels: list = param(
        [0, 25, 50, 75, 100],
        "(0 to 100) % of the budget-filling distractors added to the answer passage")
    store: str = param(
        "chroma",
        "\"chroma\" (embedded, in the run folder), \"chroma://HOST:PORT\", \"elasticsearch\", \"pinecone\"")
    embedder: str = param("local/all-MiniLM-L6-v2", "embedding model spec (offline default; openai/MODEL with a key)")
    chunk_tokens: int = param(200, "(at least 10) RAG chunk size in tokens (tiktoken cl100k)")
    top_k: int = param(3, "(at least 1) chunks retrieved per question")
    seed: int = param(0, "distractor choice and order")
    max_workers: int = param(1, "(at least 1) concurrent requests: raise for remote endpoints")
    max_answer_tokens: int = param(48, "(at least 1) answers are a few words")
    self_consistency: int = param(
        0,
        "(at least 0) judge samples at temperature 0.7 per item, for the self-consistency line of the "
        "reliability card; 0 skips them")
    closed_book: bool = param(
        False,
        "True also asks every QA pair with no context: the reading gain (with − without, paired by QA pair), and "
        "the results again on the pairs the model could not answer closed-book")
    frontier_k: list = param(
        [],
        "(at least 1) more k for RAG on the fullest sets (highest noise level): the cost frontier, accuracy "
        "against tokens read beside long context at every noise level; e.g. [1, 3, 5, 10]")
    self_route: bool = param(
        False,
        "True adds Self-Route on the fullest sets: RAG first, the long context when the model replies that the "
        "chunks do not answer; its accuracy, tokens and paired difference to long context")
    unanswerable_share: float = param(
        0.0,
        "(0 to 0.9) share of unanswerable units: QA pairs asked again at every noise level above 0 with the "
        "answer passage cut from the context and the index; above 0, every answer prompt says to reply \"not in "
        "the text\" when the documents do not answer")
    run_name: str = param("default", "results/context_vs_rag/<run_name>/, figures/context_vs_rag_<run_name>.png")
