"""Judging answers: a JSON yes/no verdict with the probability behind it, and the judge-free string match it is
compared with. Each kind of verdict (the seed's `correct`, answer relevance and faithfulness of seed 004) is one
value in lclab.scoring.judge_kinds: its template, reply key, column, labels and card.

Every judge returns a `Score` (lclab.scoring.score); written into a row with its kind's `columns(score)`, for its
column (e.g. `judge_correct`):

    judge_correct               the verdict the judge wrote (True / False), None when its reply had no verdict
    judge_correct_p             the probability of True, read from the top logprobs at the verdict token and
                                renormalized over {true, false}; on an endpoint without logprobs, 1.0 or 0.0
                                from the verdict itself, flagged by ...
    judge_correct_source        "logprobs", or "sampled" (no made-up probability: the verdict as 1 or 0)
    judge_correct_mass_outside  probability the judge put on tokens other than true/false at that token
    judge_correct_error         why there is no verdict (a reply that stayed unparseable), else None
    judge_correct_consistency   share of `samples` replies at temperature 0.7 that agree with the verdict
                                (only when samples > 0)

A reply that is still not valid JSON after the repair round gives None and the
reason: it is counted as a failure, never as a "no".
"""

from __future__ import annotations

from ..models import ParseError, Request, complete
from ..prompts import render
from ..text.normalize import contains_answer
from .logprob import complete_with_logprobs, read_values, with_logprobs
from .score import Score, unscored

JUDGE_MAX_TOKENS = 32  # a JSON verdict, with room for a model that adds a word
SAMPLE_TEMPERATURE = 0.7  # self-consistency samples: varied enough to disagree, close enough to the verdict
VERDICT = Request(max_tokens=JUDGE_MAX_TOKENS, response_format="json")  # without logprobs: they are asked where
# the endpoint gives them (scoring.logprob.complete_with_logprobs)
# Part of the fingerprint of every judged row: rows judged before verdicts carried a probability are redone.
JUDGE = "json verdict + verdict-token probability"


def _needs_bool(key: str):
    def validate(reply) -> str | None:
        if not isinstance(reply, dict) or not isinstance(reply.get(key), bool):
            return f"the JSON object needs a boolean `{key}` key"
        return None

    return validate


def judge_boolean(judge_model: str, template: str, key: str, stage: str, samples: int = 0, **fields) -> Score:
    """Ask for a JSON object with one boolean `key`: the verdict as a Score, its probability, how that was read
    and the mass outside true/false in its metadata (and the self-consistency share when `samples`)."""
    prompt = render(template, **fields)
    ask = VERDICT.but(validate=_needs_bool(key))
    try:
        reply, has_logprobs = complete_with_logprobs(judge_model, prompt, stage, ask)
    except ParseError as err:
        return unscored(f"{err} (reply: {err.raw_text[:120]!r})", p=None, source=None, mass_outside=None)
    verdict = reply.json[key]
    (score,) = read_values(reply, has_logprobs, key, ("true", "false"), "true", [str(verdict).lower()])
    read = {"p": score.score, "source": score.source, "mass_outside": score.mass_outside}
    if samples:
        votes = []
        for i in range(samples):
            try:
                votes.append(complete(judge_model, prompt, stage=stage, request=ask.but(
                    temperature=SAMPLE_TEMPERATURE, sample=i + 1)).json[key] == verdict)
            except ParseError:
                continue  # an unparseable sample is no vote either way
        read["consistency"] = sum(votes) / len(votes) if votes else None
    return Score(verdict, answer=reply.text, metadata=read)


def judge_requests(samples: int = 0) -> list[Request]:
    """Every call `judge_boolean` makes for one item (the verdict with its logprobs, then each self-consistency
    sample), as a plan looks them up: `gateway.cached(judge, prompt, request)`."""
    return [with_logprobs(VERDICT),
            *(VERDICT.but(temperature=SAMPLE_TEMPERATURE, sample=i + 1) for i in range(samples))]


def string_match(answer: str, gold_answer: str) -> Score:
    """Judge-free check: the normalized gold answer occurs in the normalized response (value True/False)."""
    return Score(contains_answer(answer, gold_answer), answer=answer)
