"""The items of the NLI evaluation and their sentence conversion (no model call here)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..text.sentences import last_sentence, to_sentences

DIRECTIONS = ("context_answer", "gt_answer", "answer_gt")
DIRECTION_NAMES = {"context_answer": "context → answer", "gt_answer": "ground truth → answer",
                   "answer_gt": "answer → ground truth"}
ORDERS = ("premise", "shuffled")


@dataclass(frozen=True)
class EvalItem:
    item_id: str
    context: str
    question: str
    ground_truth: str
    answer: str
    document: str = ""  # the context's document name, shown in the prompt when asked for


@dataclass
class Prepared:
    item: EvalItem
    context: list[str]
    question_last: str
    answer_raw: list[str]
    gt_raw: list[str]
    answer: list[str] = field(default_factory=list)  # after pronoun replacement
    gt: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def pairs(self, with_document: bool) -> list[tuple[str, str, list[str], list[str], str | None]]:
        """(direction, premise, hypotheses, raw hypotheses, document) for the seed's three pairs."""
        doc = self.item.document if with_document and self.item.document else None
        answer_premise = "\n".join([self.question_last, *self.answer]).strip()
        gt_premise = "\n".join([self.question_last, *self.gt]).strip()
        return [("context_answer", "\n".join(self.context), self.answer, self.answer_raw, doc),
                ("gt_answer", gt_premise, self.answer, self.answer_raw, None),
                ("answer_gt", answer_premise, self.gt, self.gt_raw, None)]


def prepare(item: EvalItem, language: str = "english") -> Prepared:
    """Sentence conversion of one item (no model call)."""
    p = Prepared(item, to_sentences(item.context, language), last_sentence(item.question, language),
                 to_sentences(item.answer, language), to_sentences(item.ground_truth, language))
    if not p.context:
        p.problems.append("empty context")
    if not p.answer_raw:
        p.problems.append("empty answer: no hypotheses for context → answer and ground truth → answer")
    if not p.gt_raw:
        p.problems.append("empty ground truth: no hypotheses for answer → ground truth")
    return p


def order_requests(requests: list[dict], order: str, seed: int = 0) -> list[dict]:
    """Group requests by premise, in order of first appearance; or shuffle them (seeded)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if order == "shuffled":
        shuffled = list(requests)
        random.Random(seed).shuffle(shuffled)
        return shuffled
    first: dict[str, int] = {}
    for i, r in enumerate(requests):
        first.setdefault(r["premise"], i)
    return sorted(requests, key=lambda r: first[r["premise"]])  # stable: hypothesis order kept
