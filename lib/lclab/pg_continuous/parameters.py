"""Notebook 04's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import param


@dataclass
class Parameters:
    model: str = param("local/qwen2.5-coder-1.5b", "(model) writes the question, extracts the facts and scores them")
    corpus: str = param("paul_graham", "\"paul_graham\" or a folder of .txt/.md files")
    essay: str = param("web20", "the essay (file stem) whose consecutive chunks are the golden contexts")
    start: int = param(
        1,
        "(at least 0) position of the first golden chunk in that essay (chunk 0 of web20 is a one-line banner)")
    n_noisy: int = param(3, "(at least 1) noisy chunks, each from a different other essay")
    chunk_chars: int = param(2000, "(at least 100) chunk size in characters, as in the seed")
    seed: int = param(0, "which noisy chunks are drawn")
    reviewed_qa_path: str = param(
        "data/pg_continuous/golden_qa.json",
        "reviewed question and golden response; \"\" to use the generated one")
    require_logprobs: bool = param(
        False,
        "True stops at once on a backend without logprobs instead of using the sampled token")
    max_facts: int = param(0, "(at least 0) score only the first n facts of each list (quick runs); 0 means all")
    max_workers: int = param(1, "(at least 1) concurrent requests: raise for remote endpoints")
    run_name: str = param("default", "results/pg_continuous/<run_name>/, figures/pg_continuous_<run_name>.png")
