"""Notebook 04 as one registered experiment: its plan and what makes two runs comparable."""

from __future__ import annotations

from ..experiments import Experiment, register
from ..planning.plan import CHARS_PER_TOKEN, row
from .parameters import Parameters
from .run import EXPERIMENT

FACTS_WHEN_UNCAPPED = 5  # facts per list when max_facts is 0 (what the default run extracted)


def plan(notebook: str, p: dict) -> list[dict]:
    """Generation and fact extraction (three calls), then one one-token score per fact and context."""
    facts = 2 * (p["max_facts"] or FACTS_WHEN_UNCAPPED)  # IO and COT lists
    contexts = 4 + p["n_noisy"]
    chunk = p["chunk_chars"] / CHARS_PER_TOKEN
    return [row(notebook, "generate + facts (estimated)", p["model"], 3, 0, 4 * chunk + 600, 900),
            row(notebook, "score (estimated tokens)", p["model"], facts * contexts, 0, facts * contexts * (chunk + 60),
                facts * contexts)]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="04_pg_continuous_retrieval", plan=plan, parameters=Parameters,
    comparable=("corpus", "essay", "start", "n_noisy", "chunk_chars", "seed", "reviewed_qa_path", "max_facts"),
    description="How much of the facts an answer needs does each context cover? Continuous retrieval scores"))
