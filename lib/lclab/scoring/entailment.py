"""The one-token entailment verdict: does a premise state or imply a hypothesis? p(supported) read from the
first reply token's logprobs ("1" or "0", renormalized; logprob.py), the premise first in the prompt so that
calls sharing a premise reuse it from llama.cpp's KV cache. 05's probability variant reads hypotheses with it,
06's claim diagnostics read claims with it (claims.py)."""

from __future__ import annotations

from ..prompts import render
from .logprob import WeightedScore, score


def entailment_prompt(premise: str, hypothesis: str, document: str | None = None) -> str:
    """The exact prompt of one verdict; `document` names where the premise comes from, when it matters."""
    source = render("nli_premise_source", document=document) + "\n" if document else ""
    return render("nli_probability", source=source, premise=premise, hypothesis=hypothesis)


def p_supported(model: str, premise: str, hypothesis: str, *, stage: str, document: str | None = None,
                cache_tag: str | None = None) -> WeightedScore:
    """The verdict: `.score` is p(supported) (None when unreadable: never a 0), `.sampled` the token."""
    return score(model, entailment_prompt(premise, hypothesis, document), stage=stage, cache_tag=cache_tag)


__all__ = ["entailment_prompt", "p_supported"]
