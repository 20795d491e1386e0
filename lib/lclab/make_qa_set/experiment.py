"""Notebook 00 as one registered experiment: its plan (its runs make QA sets to review, not numbers to compare)."""

from __future__ import annotations

from ..experiments import Experiment, register
from ..planning.stages import named
from ..qa.generate import drawn_from, sample_passages
from ..qa.planned import planned_generation
from ..runs.declared import declared
from ..text.corpus import load_corpus, passages
from .parameters import Parameters
from .run import EXPERIMENT, make_qa_set


def plan(notebook: str, given: dict) -> list[dict]:
    """The run's own samples (the exact generation prompts), counted and looked up in the cache; each pair's
    validation prompt built from its passage, and from the generated pair where that reply is cached (else the
    pair priced at the generation's measured size, or its budget)."""
    p = declared(Parameters, given)
    pool = passages(load_corpus(p.corpus), p.passage_chars)
    chosen = sample_passages(pool, p.n_passages, p.min_passage_chars, p.seed)
    rows, _ = planned_generation(notebook, EXPERIMENT, p.generator_model, chosen, p.low_overlap, p.max_workers)
    return [named(rows[0], f"qa_generation, {drawn_from(chosen)}"), *rows[1:]]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=make_qa_set, notebook="00_make_qa_set", plan=plan, parameters=Parameters,
    description="A QA set from the user's documents: one pair per passage, checked, for review by hand"))
