"""01's model-calling stages, declared once: the run sends them (sweep.py, needles.py, and the closed-book arm's
own, lclab.qa.closed_book) and the plan prices them (experiment.py). p: the sweep's Parameters."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Given, Stage
from ..runs.runner import answer_columns
from ..scoring.judge_kinds import correctness_judge
from ..text.normalize import contains_answer

ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
# Answers first, all of them, in prefix-sharing order; judging afterwards, so judge prompts do not evict the
# shared documents from llama.cpp's KV cache.
SWEEP = (ANSWER, correctness_judge(reads=ANSWER.name))


def needle_request(max_answer_tokens: int, needles: int) -> Request:
    """A multi-needle answer's request: room for every needle's answer."""
    return Request(max_tokens=max_answer_tokens * needles)


def needle_answer(needles: int) -> Stage:
    """The answer to `needles` questions asked together in one context."""
    return Stage("multi-needle answer", request=lambda p: needle_request(p.max_answer_tokens, needles),
                 prompt=lambda s: s.input)


def found_in_reply(given: Given, trial, row: dict) -> dict:
    """A multi-needle trial's answer, asked for every needle it holds, and which gold answers its reply holds."""
    reply = needle_answer(trial["needles"]).ask(given.p, trial)
    found = [contains_answer(reply.text, gold) for gold in trial.target]
    return {**answer_columns(reply), "found": found, "fraction_found": sum(found) / len(found)}


# The multi-needle trials' stage as the run executes it (each trial's request holds room for its k answers).
MULTI_NEEDLE = needle_answer(1).but(write=found_in_reply)
