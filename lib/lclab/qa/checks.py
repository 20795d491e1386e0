"""Automatic checks a generated QA pair must pass before a person reviews it, each able to fail.

A small model asked for a factoid pair often copies a sentence of the passage as the "question" or makes up
an answer, and then calls its own pair supported: the model's check alone filtered nothing on a user's manuals
(10 of 10 "supported", 6 of them unusable). These checks read the texts themselves:

    question_form    the question ends in "?" and is not a sentence of the passage copied out
    short_answer     the answer is a factoid: at most MAX_ANSWER_WORDS words
    answer_grounded  the answer's content words are in the passage (at least MIN_GROUNDED of them), or the answer
                     is found there as it stands

A pair that fails one goes to `qa_rejected.csv` with the first check it failed and every check's result (the
pair's `checks` Score); the review sheet holds the rest.
The generating model's own check (`llm_supported`) stays a column for the reviewer and removes nothing: on the
shipped reviewed set (data/pg_qa/qa.csv, 24 pairs a maintainer marked yes or no) it called 2 of the 14 good pairs
unsupported, while the three checks above kept all 14 and removed 7 of the 10 bad ones.
"""

from __future__ import annotations

import re

import pandas as pd

from ..scoring.baselines import content_overlap
from ..scoring.score import Score

MAX_ANSWER_WORDS = 12
MIN_GROUNDED = 0.75
CHECKS = ("question_form", "short_answer", "answer_grounded")


def _folded(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def question_form(question: str, passage: str) -> bool:
    body = question.strip()
    if not body.endswith("?"):
        return False
    words = _folded(body)
    return len(words.split()) >= 3 and words not in _folded(passage)


def short_answer(answer: str) -> bool:
    return 0 < len(answer.split()) <= MAX_ANSWER_WORDS


def answer_grounded(answer: str, passage: str, found_as_is: bool) -> bool:
    overlap = content_overlap(answer, passage)
    return bool(found_as_is) or (overlap is not None and overlap >= MIN_GROUNDED)


def pair_checks(row: dict) -> Score:
    """The pair's checks as a Score: value True when it passes all; explanation = the first check it fails (in
    CHECKS order); metadata = each check's result."""
    results = {"question_form": question_form(row["question"], row["passage"]),
               "short_answer": short_answer(row["answer"]),
               "answer_grounded": answer_grounded(row["answer"], row["passage"], row.get("answer_in_source"))}
    failed = next((name for name in CHECKS if not results[name]), None)
    return Score(failed is None, answer=row["question"], explanation=failed, metadata=results)


def first_failed(row: dict) -> str | None:
    """The first check the pair fails (in CHECKS order), or None when it passes all."""
    return pair_checks(row).explanation


def apply_checks(pairs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """(pairs passing every check, the rejected ones with `failed_check` and each check's result
    (`checks_<name>`), how many each check removed)."""
    scored = pd.DataFrame([pair_checks(r).columns("checks", explanation="failed_check")
                           for r in pairs.to_dict("records")], index=pairs.index,
                          columns=["checks", *(f"checks_{c}" for c in CHECKS), "checks_error", "failed_check"])
    failed = scored["failed_check"]
    removed = {name: int((failed == name).sum()) for name in CHECKS}
    kept = [*(f"checks_{c}" for c in CHECKS), "failed_check"]
    rejected = pairs[failed.notna()].join(scored.loc[failed.notna(), kept])
    return pairs[failed.isna()], rejected, removed
