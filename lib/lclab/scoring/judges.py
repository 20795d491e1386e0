"""Judging answers: the seed's LLM judge (JSON `correct`), answer relevance and faithfulness (seed 004),
each with the probability behind its verdict; and the judge-free checks they are compared with.

Every judge returns, for its column (e.g. `judge_correct`):

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

from ..models import ParseError, complete
from ..prompts import render
from ..text.normalize import contains_answer
from .logprob import complete_with_logprobs, read_values

SAMPLE_TEMPERATURE = 0.7  # self-consistency samples: varied enough to disagree, close enough to the verdict
# Part of the fingerprint of every judged row: rows judged before verdicts carried a probability are redone.
JUDGE = "json verdict + verdict-token probability"


def _needs_bool(key: str):
    def validate(reply) -> str | None:
        if not isinstance(reply, dict) or not isinstance(reply.get(key), bool):
            return f"the JSON object needs a boolean `{key}` key"
        return None

    return validate


def judge_boolean(judge_model: str, template: str, key: str, column: str, stage: str, samples: int = 0,
                  **fields) -> dict:
    """Ask for a JSON object with one boolean `key`; the verdict, its probability and how it was read."""
    prompt = render(template, **fields)
    ask = dict(stage=stage, response_format="json", max_tokens=32, validate=_needs_bool(key))
    empty = {column: None, f"{column}_p": None, f"{column}_source": None, f"{column}_mass_outside": None}
    try:
        reply, has_logprobs = complete_with_logprobs(judge_model, prompt, **ask)
    except ParseError as err:
        return {**empty, f"{column}_error": f"{err} (reply: {err.raw_text[:120]!r})"}
    verdict = reply.json[key]
    (score,) = read_values(reply, has_logprobs, key, ("true", "false"), "true", [str(verdict).lower()])
    out = {column: verdict, f"{column}_p": score.score, f"{column}_source": score.source,
           f"{column}_mass_outside": score.mass_outside, f"{column}_error": None}
    if samples:
        votes = []
        for i in range(samples):
            try:
                votes.append(complete(judge_model, prompt, temperature=SAMPLE_TEMPERATURE, sample=i + 1,
                                      **ask).json[key] == verdict)
            except ParseError:
                continue  # an unparseable sample is no vote either way
        out[f"{column}_consistency"] = sum(votes) / len(votes) if votes else None
    return out


def judge_correct(judge_model: str, question: str, answer: str, gold_answer: str, samples: int = 0) -> dict:
    """The seed's judge: judge_correct, judge_correct_p, ..., judge_error."""
    got = judge_boolean(judge_model, "judge_correct", "correct", "judge_correct", "judge", samples,
                        question=question, answer=answer, gold_answer=gold_answer)
    got["judge_error"] = got.pop("judge_correct_error")
    return got


def judge_relevance(judge_model: str, question: str, answer: str, samples: int = 0,
                    stage: str = "judge_relevance") -> dict:
    """Does the answer address the question? relevant, relevant_p, ..., relevant_error."""
    return judge_boolean(judge_model, "judge_relevance", "relevant", "relevant", stage, samples,
                         question=question, answer=answer)


def judge_faithfulness(judge_model: str, question: str, answer: str, passages: str, samples: int = 0,
                       stage: str = "judge_faithfulness") -> dict:
    """Is the answer supported by the retrieved passages? faithful, faithful_p, ..., faithful_error."""
    return judge_boolean(judge_model, "judge_faithfulness", "faithful", "faithful", stage, samples,
                         question=question, answer=answer, passages=passages)


def string_match(answer: str, gold_answer: str) -> bool:
    """Judge-free check: the normalized gold answer occurs in the normalized response."""
    return contains_answer(answer, gold_answer)


def correctness_card(items, judge_model: str, metric: str, reference: str = "gold") -> dict:
    """The reliability card of the `correct` judge over a run's items, against data/judge_labels/answer_correct.csv,
    beside the share of the reference's content words found in the response."""
    from .baselines import content_overlap
    from .reliability import judged_card

    return judged_card(items, "judge_correct", metric, judge_model, "answer_correct", ("question", reference, "response"),
                       "reference words in the response", lambda r: content_overlap(r[reference], r["response"]))
