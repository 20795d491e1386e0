"""Notebook 00 as one registered experiment: its plan (its runs make QA sets to review, not numbers to compare)."""

from __future__ import annotations

from ..experiments import Experiment, register
from ..planning.plan import CHARS_PER_TOKEN, JUDGE_REPLY_TOKENS, planned_answers, row
from ..qa.generate import GENERATION_TOKENS, generation_samples, sample_passages
from ..text.corpus import load_corpus, passages
from .parameters import Parameters
from .run import EXPERIMENT

VALIDATION_TEMPLATE_TOKENS = 80  # the validation prompt around the passage, question and answer


def plan(notebook: str, p: dict) -> list[dict]:
    """The run's own samples (the exact generation prompts), counted and looked up in the cache; the
    validation calls, whose prompts quote a pair not yet generated, from the passages' length."""
    pool = passages(load_corpus(p["corpus"]), p["passage_chars"])
    chosen = sample_passages(pool, p["n_passages"], p["min_passage_chars"], p["seed"])
    prompts = [s.input for s in generation_samples(chosen, p.get("low_overlap", False))]
    generation = planned_answers(notebook, "qa_generation", p["model"], prompts, GENERATION_TOKENS,
                                 response_format="json")
    tokens = sum(len(c.text) for c in chosen) / CHARS_PER_TOKEN
    return generation + [row(notebook, "qa_validation (estimated)", p["model"], len(prompts),
                             generation[0]["cached"], tokens + VALIDATION_TEMPLATE_TOKENS * len(prompts),
                             JUDGE_REPLY_TOKENS * len(prompts))]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="00_make_qa_set", plan=plan, parameters=Parameters,
    description="A QA set from the user's documents: one pair per passage, checked, for review by hand"))
