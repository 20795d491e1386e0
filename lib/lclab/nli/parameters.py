"""Notebook 05's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import param


@dataclass
class Parameters:
    model: str = param(
        "local/qwen2.5-coder-1.5b",
        "(model) the model doing pronoun replacement, NLI and refusal tagging")
    models: list = param([], "(models) several models to compare; empty means [model]")
    variants: list = param(
        ["separated", "probability"],
        "(one of: separated, same, probability) the seed's prompt with refusal in its own batch or inside "
        "the NLI prompt, or one token per hypothesis read as p(supported)")
    concurrency: list = param(
        [1],
        "(at least 1) concurrent requests, one configuration per level: e.g. [1, 8, 32] on a remote endpoint "
        "(the seed used 32); the embedded model runs one request at a time")
    items_path: str = param(
        "data/nli_eval/items.jsonl",
        "JSONL: item_id, context, question, ground_truth, answer (document optional)")
    labels_dir: str = param("data/nli_eval", "hypothesis_labels.csv and refusal_labels.csv")
    n_items: int = param(0, "(at least 0) evaluate only the first n items (quick runs); 0 means all")
    order: str = param(
        "premise",
        "(one of: premise, shuffled) group calls sharing a premise (KV-cache reuse), or shuffle them to "
        "measure the difference")
    pronouns: bool = param(True, "False skips pronoun replacement")
    with_document: bool = param(False, "True names the context's document in the context → answer prompt")
    language: str = param("english", "the Punkt model for sentence conversion")
    run_name: str = param("default", "results/nli/<run_name>/, figures/nli_<run_name>.png")
