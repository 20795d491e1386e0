"""Notebook 00 as one registered experiment: its plan (its runs make QA sets to review, not numbers to compare)."""

from __future__ import annotations

from ..experiments import Experiment, register
from ..planning.priced import named
from ..qa.generate import drawn_from
from ..qa.planned import planned_generation
from ..runs.declared import declared
from ..text.corpus import load_corpus, passages
from ..text.headings import places
from .parameters import Parameters
from .run import EXPERIMENT, make_qa_set
from .sizing import in_order, study_passages


def plan(notebook: str, given: dict) -> list[dict]:
    """The run's own passages (sized by the study as the run sizes them) and their exact generation prompts,
    counted and looked up in the cache; every later call built from the cached pairs as the run builds it, else
    priced at the measured fan-outs (lclab.qa.planned)."""
    p = declared(Parameters, given)
    loaded = load_corpus(p.corpus)
    pool = passages(loaded, p.passage_chars)
    chosen, _, _ = study_passages(p, pool, EXPERIMENT)
    rows, _ = planned_generation(notebook, EXPERIMENT, p.generator_model, chosen, p.low_overlap, p.max_workers,
                                 places(loaded, in_order(pool, chosen)))
    return [named(rows[0], f"qa_generation, {drawn_from(chosen)}"), *rows[1:]]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=make_qa_set, notebook="00_make_qa_set", plan=plan, parameters=Parameters,
    description="A QA set from the user's documents: the best of several checked pairs per passage, for review"))
