"""The golden response's facts (IO or chain-of-thought extraction), each scored against each context."""

from __future__ import annotations

import re

import pandas as pd

from ..models import LogprobsUnavailableError, MissingAPIKeyError, Request, complete
from ..prompts import render, template
from ..runs.folders import fingerprint
from ..pipeline import Given, Stage
from ..runs.runner import Run
from ..runs.samples import Sample
from ..scoring.logprob import score, score_request
from ..scoring.score import LAYOUT
from .contexts import Context

STYLES = {"io": "facts_io", "cot": "facts_cot"}
FACTS_SCHEMAS = {
    "io": {"type": "object", "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
           "required": ["facts"]},
    "cot": {"type": "object", "properties": {"reasoning": {"type": "string"},
                                             "facts": {"type": "array", "items": {"type": "string"}}},
            "required": ["reasoning", "facts"]},
}


FACTS_TOKENS = 900  # a list of facts (and, chain of thought, its reasoning) as JSON


def _normalize_fact(fact: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", fact.lower()).strip()


def unique_facts(facts: list) -> list[str]:
    """Non-empty fact strings, with exact repeats (case, spacing, punctuation aside) removed, order kept."""
    seen, out = set(), []
    for fact in facts:
        text = str(fact).strip().lstrip("-•*0123456789. )").strip()
        key = _normalize_fact(text)
        if key and key not in seen:
            seen.add(key)
            out.append(text)
    return out


def _facts_shape(reply) -> str | None:
    if not isinstance(reply, dict) or not isinstance(reply.get("facts"), list):
        return 'the reply needs a list under "facts"'
    if not unique_facts(reply["facts"]):
        return 'the "facts" list is empty'
    return None


def facts_prompt(style: str, response: str) -> str:
    """The exact prompt that lists the facts of `response` in `style` (the run's, and its plan's)."""
    return render(STYLES[style], response=response)


# The gateway stages of the facts' extraction and of each (fact, context) score (the run's and the plan's rows).
FACTS_STAGE, SCORE_STAGE = "facts", "score"


def facts_request(style: str) -> Request:
    """The fact extraction's request in `style` (the run's, and its plan's)."""
    return Request(max_tokens=FACTS_TOKENS, response_format=FACTS_SCHEMAS[style], validate=_facts_shape)


def extract_facts(model: str, response: str, style: str) -> dict:
    """The unique facts of `response` with the IO or the chain-of-thought prompt (one cached call)."""
    if style not in STYLES:
        raise ValueError(f"fact style must be one of {sorted(STYLES)}, got {style!r}")
    reply = complete(model, facts_prompt(style, response), stage=FACTS_STAGE, request=facts_request(style))
    facts = unique_facts(reply.json["facts"])
    return {"style": style, "facts": facts, "listed": len(reply.json["facts"]),
            "reasoning": reply.json.get("reasoning", "")}


def fact_samples(facts: dict[str, list[str]], contexts: list[Context]) -> list[Sample]:
    """Every (fact, context) as a Sample with its exact scoring prompt; the context is the cluster."""
    return [Sample(id=f"{style}-{i + 1}@{ctx.context_id}", source=ctx,
                   input=render("fact_in_context", context=ctx.chunk.text, fact=fact),
                   metadata={"style": style, "fact_id": f"{style}-{i + 1}", "context_id": ctx.context_id,
                             "fact": fact, "kind": "golden" if ctx.golden else "noisy", "cluster": ctx.context_id})
            for ctx in contexts for style, fs in facts.items() for i, fact in enumerate(fs)]


def scored_fact(given: Given, sample: Sample, row: dict) -> dict:
    """One fact's logprob-weighted score in one context, by the model under test."""
    return score(given.p.model, sample.input, stage=SCORE_STAGE, require_logprobs=given.p.require_logprobs).columns(
        "p", error="error", answer="sampled")


# One one-token scoring call per (fact, context), the prompt the sample's own.
SCORE = Stage(SCORE_STAGE, request=lambda p: score_request(), prompt=lambda s: s.input, write=scored_fact)


def score_facts(run: Run, p, facts: dict[str, list[str]], contexts: list[Context]) -> pd.DataFrame:
    """One logprob-weighted score per (fact, context), resumable from fact_scores.jsonl; ordered context by context.

    The prompt starts with the context, so consecutive calls on one local model
    share their prefix and llama.cpp re-evaluates only the fact and the question.
    """
    return run.stages(
        fact_samples(facts, contexts), [SCORE], Given(p),
        log=run.log(("style", "fact_id", "context_id", "fingerprint"), "fact_scores.jsonl"),
        key=lambda s: (s["style"], s["fact_id"], s["context_id"],
                       fingerprint(p.model, template("fact_in_context"), s.source.chunk.text, s["fact"], LAYOUT)),
        describe=lambda s: {"fact": s["fact"], "kind": s["kind"]},
        stop_on=(LogprobsUnavailableError, MissingAPIKeyError))
