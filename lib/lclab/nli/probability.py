"""The one-token configuration of the NLI evaluation (variant "probability"): no facts split, no explanation
generated. Each hypothesis is read as one fact, and its tag as p(supported) from the first reply token
("1" or "0", renormalized; lclab.scoring.logprob); refusal likewise, one text per call. The premise comes
first in the prompt, so calls sharing a premise reuse it from llama.cpp's KV cache."""

from __future__ import annotations

from ..prompts import render
from ..scoring.entailment import entailment_prompt, p_supported
from ..scoring.logprob import score
from ..scoring.score import Score, unscored
from .pipeline import ENTAILED, Verdict


def probability_prompt(premise: str, hypothesis: str, document: str | None = None) -> str:
    """The exact prompt of one hypothesis in the probability variant: the premise first (shared prefix)."""
    return entailment_prompt(premise, hypothesis, document)


# One-token verdicts are stages of their own: the separated variant's "nli" and "refusal" write JSON replies
# some fifty tokens long, and a plan prices each stage's replies at its measured mean.
VERDICT_STAGES = ("nli verdict", "refusal verdict")


def score_hypothesis(model: str, premise: str, hypothesis: str, document: str | None = None,
                     cache_tag: str | None = None) -> Verdict:
    """One fact: the hypothesis, tagged by the sampled token, with p(supported) from the first-token logprobs."""
    read = p_supported(model, premise, hypothesis, stage=VERDICT_STAGES[0], document=document, cache_tag=cache_tag)
    if read.score is None:
        return Verdict(facts=[], refusal=None)  # no estimate: counted as unscored, never as a 0
    tag = ENTAILED if read.sampled == "1" else "not supported"
    return Verdict(facts=[{"fact": hypothesis, "explanation": None, "tag": tag, "p_supported": read.score,
                           "p_source": read.source}], refusal=None)


def refusal_prompt(text: str) -> str:
    """The exact prompt of one text's refusal verdict (one token)."""
    return render("refusal_probability", text=text)


def score_refusal(model: str, text: str, cache_tag: str | None = None) -> Score:
    """Is the text an answer refusal, as a Score: the sampled verdict (True/False), its probability `p` and how
    it was read `source`; unscored, with the reason, when the reply holds no verdict."""
    read = score(model, refusal_prompt(text), stage=VERDICT_STAGES[1], cache_tag=cache_tag)
    if read.score is None:
        return unscored(read.unscored or "no verdict", read.sampled, p=None, source=read.source)
    return Score(read.sampled == "1", read.sampled, metadata={"p": read.score, "source": read.source})
