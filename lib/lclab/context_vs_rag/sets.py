"""The document sets of notebook 02: one fixed distractor list per QA pair, grown level by level.

For each validated QA pair, the distractors that fill the context budget are
chosen once (seeded). At a noise level of p %, the first round(p % of them) join
the answer document, so each level's set contains the previous one, as in the
seed's "keep adding distractors". RAG indexes exactly that set.

An unanswerable set (`unanswerable_share`) is a QA pair's set at a noise level above 0 with its answer passage
cut out, from the long context and from the index alike; it is a unit of its own (`<qa_id>/absent`), since its
pair is also asked with the passage.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import pandas as pd

from ..models import ACCOUNTING
from ..models.embeddings import get_embedder
from ..retrieval.chunking import Chunker
from ..retrieval.vectorstores import index_name, open_index
from ..stats.abstention import unanswerable_count
from ..text.context import IF_ABSENT, budget_fillers
from ..text.corpus import Document


@dataclass(frozen=True)
class DocumentSet:
    qa_id: str
    question: str
    gold: str
    answer_id: str
    noise_pct: int
    docs: tuple[Document, ...]  # answer + distractors, in the (shuffled) order of the long context
    answerable: bool = True  # False: the answer passage was cut out (answer_id names what is missing)

    @property
    def n_distractors(self) -> int:
        return len(self.docs) - (1 if self.answerable else 0)

    def answer_position(self, read: list | None = None) -> int | None:
        """Where the answer passage sits among the numbered documents of a prompt: in the long context (`read`
        None), or among the chunks a retrieval read (its first chunk of the answer document); None where the
        prompt holds none of it (an unanswerable set, a retrieval that missed). The explorer frames it."""
        if not self.answerable:
            return None
        ids = [d.id for d in self.docs] if read is None else [c.doc_id for c in read]
        return ids.index(self.answer_id) if self.answer_id in ids else None


def n_at_level(noise_pct: float, n_max: int) -> int:
    """Distractors at a noise level: p % of those that fill the budget, rounded half up."""
    if not 0 <= noise_pct <= 100:
        raise ValueError(f"noise levels are percentages within 0..100, got {noise_pct}")
    return math.floor(noise_pct / 100 * n_max + 0.5)


def build_sets(qa: pd.DataFrame, pool: list[Document], context_tokens: int, noise_levels: list[int],
               seed: int, count, count_text, unanswerable_share: float = 0.0) -> list[DocumentSet]:
    """Every pair's set at every level; then, with `unanswerable_share`, the first pairs' sets (in file order,
    as many as the share asks for) again at every level above 0 without their answer passage."""
    sets, absent = [], unanswerable_count(unanswerable_share, len(qa))
    # With unanswerable sets every prompt carries IF_ABSENT: the budget is filled counting it.
    fillers = list(budget_fillers(qa, pool, [context_tokens], seed, count, count_text,
                                  IF_ABSENT if unanswerable_share else ""))
    for row, answer, _, full in fillers:
        for level in noise_levels:
            docs = [answer, *full[: n_at_level(level, len(full))]]
            random.Random(f"{seed}:{row.qa_id}:{level}").shuffle(docs)
            sets.append(DocumentSet(row.qa_id, row.question, row.answer, answer.id, level, tuple(docs)))
    for row, answer, _, full in [fillers[j % len(fillers)] for j in range(absent)]:
        for level in [n for n in noise_levels if n > 0]:
            docs = list(full[: n_at_level(level, len(full))])
            random.Random(f"{seed}:{row.qa_id}:{level}:absent").shuffle(docs)
            sets.append(DocumentSet(f"{row.qa_id}/absent", row.question, row.answer, answer.id, level, tuple(docs),
                                    answerable=False))
    return sets


def retrieve(doc_set: DocumentSet, store: str, embedder_spec: str, chunker: Chunker, top_k: int,
             directory) -> dict:
    """Index exactly this document set in its own collection and retrieve the top-k chunks. The time it took goes
    to the run's accounting (stages "index" and "search"), not into the item: a rescore compares item rows, and a
    wall-clock column differs on every replay."""
    embedder = get_embedder(embedder_spec)
    name = index_name("cvr", doc_set.qa_id, f"n{doc_set.noise_pct}", chunker.name, embedder.spec)
    t0 = time.perf_counter()
    index = open_index(store, name, embedder, directory=directory)
    index.add(chunker.split(doc_set.docs))
    t1 = time.perf_counter()
    hits = index.search(doc_set.question, top_k)
    t2 = time.perf_counter()
    ACCOUNTING.add("index", model_seconds=t1 - t0)
    ACCOUNTING.add("search", model_seconds=t2 - t1)
    return {"hits": hits}
