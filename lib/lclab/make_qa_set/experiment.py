"""Notebook 00 as one registered experiment: its plan (its runs make QA sets to review, not numbers to compare)."""

from __future__ import annotations

from ..experiments import Experiment, register
from ..models import cached
from ..planning.plan import row
from ..prompts import render
from ..qa.generate import sample_passages
from ..text.corpus import load_corpus, passages
from .run import EXPERIMENT

CHARS_PER_TOKEN = 4  # English prose, for the validation prompts (built only once a pair exists)


def plan(notebook: str, p: dict) -> list[dict]:
    """The exact generation prompts, looked up in the cache; the validation calls estimated from them."""
    pool = passages(load_corpus(p["corpus"]), p["passage_chars"])
    chosen = sample_passages(pool, p["n_passages"], p["min_passage_chars"], p["seed"])
    template = "qa_generation_low_overlap" if p.get("low_overlap") else "qa_generation"
    prompts = [render(template, context=c.text) for c in chosen]
    hits = sum(cached(p["model"], q, response_format="json", max_tokens=128) is not None for q in prompts)
    tokens = sum(len(c.text) for c in chosen) / CHARS_PER_TOKEN
    return [row(notebook, "qa_generation", p["model"], len(prompts), hits, tokens + 60 * len(prompts),
                40 * len(prompts)),
            row(notebook, "qa_validation (estimated)", p["model"], len(prompts), hits, tokens + 80 * len(prompts),
                8 * len(prompts))]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="00_make_qa_set", plan=plan,
    description="A QA set from the user's documents: one pair per passage, checked, for review by hand"))
