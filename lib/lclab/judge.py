"""Judging answers: the seed's LLM judge (JSON `correct`) and a judge-free string check."""

from __future__ import annotations

from .errors import ParseError
from .gateway import complete
from .prompts import render
from .text import contains_answer


def _needs_bool(key: str):
    def validate(reply) -> str | None:
        if not isinstance(reply, dict) or not isinstance(reply.get(key), bool):
            return f"the JSON object needs a boolean `{key}` key"
        return None

    return validate


def judge_correct(judge_model: str, question: str, answer: str, gold_answer: str) -> dict:
    """The judge's verdict as {"judge_correct": bool | None, "judge_error": str | None}.

    A reply that is still not valid JSON after the repair round gives
    judge_correct=None and the reason: it is counted as a failure, never as wrong.
    """
    prompt = render("judge_correct", question=question, answer=answer, gold_answer=gold_answer)
    try:
        reply = complete(judge_model, prompt, stage="judge", response_format="json",
                         max_tokens=32, validate=_needs_bool("correct"))
    except ParseError as err:
        return {"judge_correct": None, "judge_error": f"{err} (reply: {err.raw_text[:120]!r})"}
    return {"judge_correct": reply.json["correct"], "judge_error": None}


def string_match(answer: str, gold_answer: str) -> bool:
    """Judge-free check: the normalized gold answer occurs in the normalized response."""
    return contains_answer(answer, gold_answer)
