"""The document sets of notebook 02: one fixed distractor list per QA pair, grown level by level.

For each validated QA pair, the distractors that fill the context budget are
chosen once (seeded). At a noise level of p %, the first round(p % of them) join
the answer document, so each level's set contains the previous one, as in the
seed's "keep adding distractors". RAG indexes exactly that set.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import pandas as pd

from ..models.embeddings import get_embedder
from ..retrieval.chunking import Chunker
from ..retrieval.vectorstores import index_name, open_index
from ..text.context import budget_fillers
from ..text.corpus import Document


@dataclass(frozen=True)
class DocumentSet:
    qa_id: str
    question: str
    gold: str
    answer_id: str
    noise_pct: int
    docs: tuple[Document, ...]  # answer + distractors, in the (shuffled) order of the long context

    @property
    def n_distractors(self) -> int:
        return len(self.docs) - 1


def n_at_level(noise_pct: float, n_max: int) -> int:
    """Distractors at a noise level: p % of those that fill the budget, rounded half up."""
    if not 0 <= noise_pct <= 100:
        raise ValueError(f"noise levels are percentages within 0..100, got {noise_pct}")
    return math.floor(noise_pct / 100 * n_max + 0.5)


def build_sets(qa: pd.DataFrame, pool: list[Document], context_tokens: int, noise_levels: list[int],
               seed: int, count, count_text) -> list[DocumentSet]:
    sets = []
    for row, answer, _, full in budget_fillers(qa, pool, [context_tokens], seed, count, count_text):
        for level in noise_levels:
            docs = [answer, *full[: n_at_level(level, len(full))]]
            random.Random(f"{seed}:{row.qa_id}:{level}").shuffle(docs)
            sets.append(DocumentSet(row.qa_id, row.question, row.answer, answer.id, level, tuple(docs)))
    return sets


def retrieve(doc_set: DocumentSet, store: str, embedder_spec: str, chunker: Chunker, top_k: int,
             directory) -> dict:
    """Index exactly this document set in its own collection and retrieve the top-k chunks."""
    embedder = get_embedder(embedder_spec)
    name = index_name("cvr", doc_set.qa_id, f"n{doc_set.noise_pct}", chunker.name, embedder.spec)
    t0 = time.perf_counter()
    index = open_index(store, name, embedder, directory=directory)
    index.add(chunker.split(doc_set.docs))
    t1 = time.perf_counter()
    hits = index.search(doc_set.question, top_k)
    t2 = time.perf_counter()
    return {"hits": hits, "index_s": t1 - t0, "search_s": t2 - t1}
