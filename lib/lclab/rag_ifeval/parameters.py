"""Notebook 07's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import param


@dataclass
class Parameters:
    models: list = param(
        ["local/qwen2.5-coder-1.5b", "local/qwen2.5-coder-0.5b"],
        "(models) model specs, or model-config objects with the benchmark's fields")
    docs_path: str = param(
        "data/rag_ifeval/documents.jsonl",
        "documents, one JSON object per line with id and contents")
    eval_path: str = param(
        "data/rag_ifeval/samples.json",
        "samples, a JSON list of objects with id, question, context, expect")
    prompt: str = param(
        "lib/lclab/rag_ifeval/prompts/rag_ifeval.jinja",
        "Jinja template given question, docs and refusal_message")
    shuffle_context: bool = param(
        False,
        "True shows each sample's documents in a seeded random order (logged per sample)")
    shuffle_seed: int = param(0, "seed of that order")
    system_message: str = param(
        "Jesteś pomocnym asystentem udzielającym odpowiedzi w języku polskim.",
        "empty sends none")
    refusal_message: str = param(
        "Nie udało mi się odnaleźć odpowiedzi na pytanie",
        "the phrase that counts as a refusal")
    text_completion: bool = param(
        False,
        "True sends the bare prompt as text to continue (no chat template, no system message)")
    max_tokens: int = param(384, "(at least 1) answer length limit for models given as specs")
    n_samples: int = param(0, "(at least 0) only the first n samples (quick runs); 0 means all")
    run_name: str = param("default", "results/rag_ifeval/<run_name>/, figures/rag_ifeval_<run_name>.png")
