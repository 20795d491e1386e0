"""Building long contexts: fill a token budget with distractors, place the answer at a depth."""

from __future__ import annotations

import math
import random
import weakref
from typing import Callable, Iterator, Sequence

from ..prompts import render
from .corpus import Document
from .normalize import contains_answer


def format_documents(docs: Sequence[Document]) -> str:
    return "\n\n".join(render("document", index=i, text=d.text) for i, d in enumerate(docs))


def answer_prompt(docs: Sequence[Document], question: str, if_absent: str = "") -> str:
    """The answer prompt; `if_absent` (say, IF_ABSENT) tells the model what to reply when the documents do not
    answer, for runs that hold unanswerable sets or route on that reply (Self-Route)."""
    return render("answer_with_documents", documents=format_documents(docs), question=question, if_absent=if_absent)


# What an answer prompt says when the documents may not hold the answer (lclab.scoring.refusal reads the reply).
ABSENT_REPLY = "not in the text"
IF_ABSENT = f' If the documents do not answer it, reply "{ABSENT_REPLY}".'



def depth_position(depth_pct: float, n_documents: int) -> int:
    """Index of the answer document among n documents at a depth in percent (0 = first, 100 = last)."""
    if not 0 <= depth_pct <= 100:
        raise ValueError(f"depth must be within 0..100 %, got {depth_pct}")
    # Round half up (Python's round() would send 50 % of 2 documents to the first).
    return math.floor(depth_pct / 100 * (n_documents - 1) + 0.5)


def place_at_depth(answer: Document, distractors: Sequence[Document], depth_pct: float) -> list[Document]:
    """The distractors in their given order with the answer document inserted at the depth."""
    pos = depth_position(depth_pct, len(distractors) + 1)
    return [*distractors[:pos], answer, *distractors[pos:]]


def candidate_distractors(
    answer: Document, pool: Sequence[Document], gold_answer: str, rng: random.Random
) -> list[Document]:
    """Shuffled passages from other files that do not happen to contain the gold answer.

    Passages of the answer's own file are left out: they often restate its facts,
    and a second copy of the answer would blur what depth means.
    """
    candidates = [d for d in pool if d.source != answer.source and not contains_answer(d.text, gold_answer)]
    rng.shuffle(candidates)
    return candidates


# A passage's own token count, kept per counter: every pair and budget of a run scans the same pool, and most of
# the pool no longer fits once the budget is nearly full. A header and its seam can merge at most a few tokens
# of the passage into one, so a passage whose bare count exceeds the room by more than SEAM_TOKENS cannot fit and
# is skipped without counting its document block; the others are counted exactly, as before, so the distractors
# chosen are the same.
SEAM_TOKENS = 8
_BARE_COSTS: "weakref.WeakKeyDictionary[Callable[[str], int], dict[str, int]]" = weakref.WeakKeyDictionary()


def _bare_costs(count_text: Callable[[str], int]) -> dict[str, int]:
    try:
        return _BARE_COSTS.setdefault(count_text, {})
    except TypeError:  # a counter that cannot be weakly referenced: a cache for this call only
        return {}


def fill_budget(
    answer: Document,
    candidates: Sequence[Document],
    question: str,
    budget_tokens: int,
    count_tokens: Callable[[str], int],
    count_text: Callable[[str], int] | None = None,
    if_absent: str = "",
) -> list[Document]:
    """Take candidates in order while the whole answer prompt (with `if_absent`, as it will be asked) stays within
    `budget_tokens`.

    `count_tokens` counts a whole prompt (the sweep passes one that includes the
    chat template); `count_text` counts a bare fragment (defaults to
    `count_tokens`). Documents are costed one by one with `count_text`, since a
    whole-prompt counter would charge each of them the chat template again, and
    the final prompt is counted exactly with `count_tokens`, so the budget is
    never exceeded at any depth.
    """
    count_text = count_text or count_tokens
    base = count_tokens(answer_prompt([answer], question, if_absent))
    if base > budget_tokens:
        raise ValueError(
            f"context budget of {budget_tokens} tokens is smaller than the answer document "
            f"{answer.id!r} alone ({base} tokens with the prompt): raise context_tokens "
            f"or use shorter passages"
        )
    chosen, used = [], base
    bare = _bare_costs(count_text)
    for doc in candidates:
        if doc.text not in bare:
            bare[doc.text] = count_text(doc.text)
        if used + bare[doc.text] - SEAM_TOKENS > budget_tokens:
            continue  # cannot fit even with its header free: not worth counting exactly
        cost = count_text("\n\n" + render("document", index=len(chosen) + 1, text=doc.text))
        if used + cost > budget_tokens:
            continue  # a shorter passage further down may still fit
        chosen.append(doc)
        used += cost
    # Counting pieces apart can differ from counting the joined text by a token
    # or two at the seams; drop the last distractor until the real count fits.
    while chosen and max(
        count_tokens(answer_prompt(place_at_depth(answer, chosen, d), question, if_absent)) for d in (0, 100)
    ) > budget_tokens:
        chosen.pop()
    return chosen


def budget_fillers(qa, pool: Sequence[Document], budgets: Sequence[int], seed: int, count_tokens: Callable[[str], int],
                   count_text: Callable[[str], int] | None = None, if_absent: str = "") -> Iterator[tuple]:
    """For each QA pair (rows with qa_id, doc_id, question, answer) and each budget:
    (row, answer document, budget, the distractors that fill it).

    The candidate distractors are shuffled once per pair with a seed of its own,
    so every budget of a pair draws from the same order, and a pair's
    distractors do not change when other pairs are added or removed.
    """
    by_id = {d.id: d for d in pool}
    for row in qa.itertuples():
        answer = by_id[row.doc_id]
        candidates = candidate_distractors(answer, pool, row.answer, random.Random(f"{seed}:{row.qa_id}"))
        for budget in budgets:
            yield row, answer, budget, fill_budget(answer, candidates, row.question, budget, count_tokens, count_text,
                                                   if_absent)
