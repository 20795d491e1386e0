"""Judging answers: the seed's LLM judge (JSON `correct`), answer relevance and faithfulness (seed 004),
each with the probability behind its verdict; and the judge-free checks they are compared with.

Every judge returns a `Score` (lclab.scoring.score); written into a row with `score.columns(column)`, for its
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
from ..pipeline import Stage
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


def correctness_judge(reads: str = "answer", name: str = "judge") -> Stage:
    """The seed's correctness judge as a declared stage: the run calls `judge_correct` on each sample's reply of
    stage `reads` (the question from `sample.source.question`, the reference from `sample.target`); the plan
    prices the same template under `judge_requests(p.self_consistency)`."""
    return Stage(name, role="judge", request=lambda p: judge_requests(p.self_consistency), reads=reads,
                 template="judge_correct", slots=("answer",),
                 known=lambda s: {"question": s.source.question, "gold_answer": s.target})


def relevance_judge(reads: str = "answer", name: str = "judge_relevance") -> Stage:
    """The relevance judge as a declared stage: does the reply of stage `reads` address the question
    (`sample.input`)? The run calls `judge_relevance(..., stage=name)`."""
    return Stage(name, role="judge", request=lambda p: judge_requests(p.self_consistency), reads=reads,
                 template="judge_relevance", slots=("answer",), known=lambda s: {"question": s.input})


def faithfulness_judge(reads: str = "answer", name: str = "judge_faithfulness") -> Stage:
    """The faithfulness judge as a declared stage: is the reply of stage `reads` supported by the passages that
    reply read? The passages are what retrieval found (known at run time only, like a RAG answer's prompt): a
    plan prices them at their declared size."""
    return Stage(name, role="judge", request=lambda p: judge_requests(p.self_consistency), reads=reads,
                 template="judge_faithfulness", slots=("answer",), known=lambda s: {"question": s.input})


def judge_correct(judge_model: str, question: str, answer: str, gold_answer: str, samples: int = 0,
                  stage: str = "judge") -> Score:
    """The seed's judge; as columns: `score.columns("judge_correct", error="judge_error")`."""
    return judge_boolean(judge_model, "judge_correct", "correct", stage, samples,
                         question=question, answer=answer, gold_answer=gold_answer)


def judge_relevance(judge_model: str, question: str, answer: str, samples: int = 0,
                    stage: str = "judge_relevance") -> Score:
    """Does the answer address the question? As columns: relevant, relevant_p, ..., relevant_error."""
    return judge_boolean(judge_model, "judge_relevance", "relevant", stage, samples, question=question, answer=answer)


def judge_faithfulness(judge_model: str, question: str, answer: str, passages: str, samples: int = 0,
                       stage: str = "judge_faithfulness") -> Score:
    """Is the answer supported by the retrieved passages? As columns: faithful, faithful_p, ..., faithful_error."""
    return judge_boolean(judge_model, "judge_faithfulness", "faithful", stage, samples,
                         question=question, answer=answer, passages=passages)


def string_match(answer: str, gold_answer: str) -> Score:
    """Judge-free check: the normalized gold answer occurs in the normalized response (value True/False)."""
    return Score(contains_answer(answer, gold_answer), answer=answer)


def correctness_columns(verdict: Score, response: str, gold_answer: str) -> dict:
    """An answer's row columns from the `correct` judge's verdict, beside the judge-free string match; a verdict
    that could not be read is the row's error (the row is then left out of every rate)."""
    return {"string_match": string_match(response, gold_answer).value,
            **verdict.columns("judge_correct", error="judge_error"),
            "error": verdict.unscored and f"judge: {verdict.unscored}"}


def correctness_card(items, judge_model: str, metric: str, reference: str = "gold", cluster: str = "qa_id") -> dict:
    """The reliability card of the `correct` judge over a run's items, against data/judge_labels/answer_correct.csv,
    beside the share of the reference's content words found in the response; every interval resamples `cluster`."""
    from .baselines import content_overlap
    from .reliability import judged_card

    return judged_card(items, "judge_correct", metric, judge_model, "answer_correct", ("question", reference, "response"),
                       "reference words in the response", lambda r: content_overlap(r[reference], r["response"]),
                       cluster)
