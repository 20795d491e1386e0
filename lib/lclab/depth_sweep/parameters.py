"""Notebook 01's parameters, declared once: its parameters cell is written from this class
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
    context_tokens: list = param([1500], "(tokens) prompt budgets; several values give a depth x length grid")
    depths: list = param([0, 25, 50, 75, 100], "(0 to 100) answer positions, % of the way through the documents")
    seed: int = param(0, "distractor choice and order")
    max_workers: int = param(
        1,
        "(at least 1) concurrent requests: 1 keeps llama.cpp's prefix reuse; raise for remote endpoints")
    max_answer_tokens: int = param(48, "(at least 1) answers are a few words")
    haystack: str = param(
        "per_pair",
        "(one of: per_pair, shared) distractors chosen per QA pair, or one haystack per length for every "
        "pair (needle-in-a-haystack style; consecutive prompts share their prefix)")
    distractors: list = param(
        ["random"],
        "(one of: random, similar) seeded-random distractors, and/or the passages most similar to the "
        "question (embedding similarity)")
    needles: list = param(
        [1],
        "(at least 1) values above 1 add multi-needle trials: that many QA pairs' passages at spread depths, "
        "asked together")
    embedder: str = param("local/all-MiniLM-L6-v2", "embedding model that ranks similar distractors")
    self_consistency: int = param(
        0,
        "(at least 0) judge samples at temperature 0.7 per item, for the self-consistency line of the "
        "reliability card; 0 skips them")
    closed_book: bool = param(
        False,
        "True also asks every QA pair with no context: the reading gain (with − without, paired by QA pair), and "
        "the depth results again on the pairs the model could not answer closed-book")
    run_name: str = param("default", "results/depth_sweep/<run_name>/, figures/depth_sweep_<run_name>.png")
