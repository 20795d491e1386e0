"""The one-token entailment verdict: does a premise state or imply a hypothesis? p(supported) read from the
first reply token's logprobs ("1" or "0", renormalized; logprob.py), the premise first in the prompt so that
calls sharing a premise reuse it from llama.cpp's KV cache. 05's probability variant reads hypotheses with it.

06's claim diagnostics check claims with the same one-token verdict on the `claim_check` prompt, whose premise is
the question and the text (`p_claim_supported`): a short correct answer ("Italy") entails a reference sentence
("Mr. Myriel had returned from Italy ...") only read as a reply to its question, as RAGChecker's checker reads it.
The question comes first, then the text, so the checks of one (question, text) share their prefix."""

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


def claim_prompt(question: str, premise: str, claim: str) -> str:
    """The exact prompt of one claim check: the question, the text (a response, a reference or a chunk), the claim."""
    return render("claim_check", question=question, premise=premise, claim=claim)


def p_claim_supported(model: str, question: str, premise: str, claim: str, *, stage: str,
                      cache_tag: str | None = None) -> WeightedScore:
    """A claim check's verdict: `.score` is p(supported) given the question and the text (None when unreadable)."""
    return score(model, claim_prompt(question, premise, claim), stage=stage, cache_tag=cache_tag)


__all__ = ["claim_prompt", "entailment_prompt", "p_claim_supported", "p_supported"]
