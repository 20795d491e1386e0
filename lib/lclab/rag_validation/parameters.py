"""Notebook 06's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import CARD_TEXTS, JUDGE_MODEL, param


@dataclass
class Parameters:
    model: str = param("local/qwen2.5-coder-1.5b", "(model) generates single-chunk questions and the RAG answers")
    judge_model: str = JUDGE_MODEL
    card_texts: int = CARD_TEXTS
    corpus: str = param("paul_graham", "\"paul_graham\" or a folder of .txt/.md files")
    store: str = param(
        "chroma",
        "\"chroma\" (embedded, in the run folder), \"chroma://HOST:PORT\", \"elasticsearch\", \"pinecone\"")
    embedder: str = param("local/all-MiniLM-L6-v2", "embedding model spec (offline default; openai/MODEL with a key)")
    chunk_tokens: int = param(200, "(at least 10) chunk size in tokens (tiktoken cl100k), as in the seed")
    n_single: int = param(42, "(at least 0) chunks sampled (one per essay) for generated single-chunk questions")
    multi_qa_path: str = param("data/multi_chunk_qa/qa.csv", "reviewed multi-chunk questions (3 reference chunks each)")
    n_multi: int = param(0, "(at least 0) multi-chunk questions to use, in file order; 0 means all validated")
    n_documents: int = param(
        0,
        "(at least 0) documents indexed: 0 means the whole corpus; n > 0 the multi-chunk questions' own documents "
        "and others drawn by seed, n in all (a quick run: retrieval among fewer chunks is easier)")
    max_k: int = param(10, "(at least 1) retrieval depth; metrics are reported for every k from 1 to max_k")
    answer_k: int = param(3, "(at least 1) chunks given to the answering model (3, as in the seed)")
    seed: int = param(0, "which chunks get single-chunk questions")
    max_workers: int = param(1, "(at least 1) concurrent requests: raise for remote endpoints")
    max_answer_tokens: int = param(96, "(at least 1) one or two sentences")
    self_consistency: int = param(
        0,
        "(at least 0) judge samples at temperature 0.7 per item, for the self-consistency line of the "
        "reliability card; 0 skips them")
    claim_metrics: bool = param(
        True,
        "True cuts every answer and reference into claims and checks each against the other and the chunks the "
        "answer read (RAGChecker's metrics, by the judge model; one-token checks)")
    run_name: str = param("default", "results/rag_validation/<run_name>/, figures/rag_validation_<run_name>.png")
