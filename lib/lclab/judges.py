"""Judging answers: the seed's LLM judge (JSON `correct`), answer relevance and faithfulness
(seed 004), and a judge-free string check."""

from __future__ import annotations

from .models import ParseError, complete
from .prompts import render
from .text import contains_answer


def _needs_bool(key: str):
    def validate(reply) -> str | None:
        if not isinstance(reply, dict) or not isinstance(reply.get(key), bool):
            return f"the JSON object needs a boolean `{key}` key"
        return None

    return validate


def judge_boolean(judge_model: str, template: str, key: str, column: str, stage: str, **fields) -> dict:
    """Ask for a JSON object with one boolean `key`; {column: bool | None, f"{column}_error": str | None}.

    A reply that is still not valid JSON after the repair round gives None and
    the reason: it is counted as a failure, never as a "no".
    """
    try:
        reply = complete(judge_model, render(template, **fields), stage=stage, response_format="json",
                         max_tokens=32, validate=_needs_bool(key))
    except ParseError as err:
        return {column: None, f"{column}_error": f"{err} (reply: {err.raw_text[:120]!r})"}
    return {column: reply.json[key], f"{column}_error": None}


def judge_correct(judge_model: str, question: str, answer: str, gold_answer: str) -> dict:
    """The seed's judge: {"judge_correct": bool | None, "judge_error": str | None}."""
    got = judge_boolean(judge_model, "judge_correct", "correct", "judge_correct", "judge",
                        question=question, answer=answer, gold_answer=gold_answer)
    return {"judge_correct": got["judge_correct"], "judge_error": got["judge_correct_error"]}


def judge_relevance(judge_model: str, question: str, answer: str) -> dict:
    """Does the answer address the question? {"relevant": ..., "relevant_error": ...}"""
    return judge_boolean(judge_model, "judge_relevance", "relevant", "relevant", "judge_relevance",
                         question=question, answer=answer)


def judge_faithfulness(judge_model: str, question: str, answer: str, passages: str) -> dict:
    """Is the answer supported by the retrieved passages? {"faithful": ..., "faithful_error": ...}"""
    return judge_boolean(judge_model, "judge_faithfulness", "faithful", "faithful", "judge_faithfulness",
                         question=question, answer=answer, passages=passages)


def string_match(answer: str, gold_answer: str) -> bool:
    """Judge-free check: the normalized gold answer occurs in the normalized response."""
    return contains_answer(answer, gold_answer)
