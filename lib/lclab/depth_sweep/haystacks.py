"""Harder haystacks for the depth sweep: one shared haystack per length, distractors that resemble the
question, and several needles at once.

    shared_fillers(...)      needle-in-a-haystack style: one seeded set of distractors per budget for every QA
                             pair (prompts of different pairs then share their prefix up to the needle, which a
                             server with prefix caching reuses)
    rank_by_similarity(...)  candidate distractors ordered by embedding similarity to the question, most similar
                             first ("similar distractors hurt more", context-rot)
    multi_needle(...)        k answer passages at spread depths in one context, asked together
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

from ..models.embeddings import get_embedder
from ..prompts import render
from ..text.context import candidate_distractors, depth_position, fill_budget
from ..text.corpus import Document
from ..text.normalize import contains_answer

Counter = Callable[[str], int]


def shared_fillers(qa, pool: Sequence[Document], budgets: Sequence[int], seed: int, count: Counter,
                   count_text: Counter | None = None):
    """(row, answer, budget, distractors) like context.budget_fillers, with one haystack per budget for all pairs.

    Distractors come from files that hold none of the pairs' answer passages and contain none of their gold
    answers; the budget is filled against the longest answer passage and question, so every pair's prompt fits.
    """
    by_id = {d.id: d for d in pool}
    rows = list(qa.itertuples())
    answers = [by_id[r.doc_id] for r in rows]
    sources = {a.source for a in answers}
    candidates = [d for d in pool if d.source not in sources and not any(contains_answer(d.text, r.answer)
                                                                          for r in rows)]
    random.Random(f"{seed}:shared").shuffle(candidates)
    longest = max(answers, key=lambda a: count_text(a.text) if count_text else count(a.text))
    question = max((r.question for r in rows), key=lambda q: count_text(q) if count_text else count(q))
    for budget in budgets:
        distractors = fill_budget(longest, candidates, question, budget, count, count_text)
        for row, answer in zip(rows, answers):
            yield row, answer, budget, distractors


def rank_by_similarity(question: str, candidates: Sequence[Document], embedder: str) -> list[tuple[Document, float]]:
    """The candidates with their cosine similarity to the question, most similar first."""
    model = get_embedder(embedder)
    vectors = model.embed([question, *[c.text for c in candidates]])
    scores = vectors[1:] @ vectors[0]
    return sorted(zip(candidates, (float(s) for s in scores)), key=lambda p: -p[1])


def similar_fillers(qa, pool: Sequence[Document], budgets: Sequence[int], seed: int, count: Counter,
                    count_text: Counter | None, embedder: str):
    """(row, answer, budget, distractors) with the distractors most similar to each pair's question."""
    by_id = {d.id: d for d in pool}
    for row in qa.itertuples():
        answer = by_id[row.doc_id]
        candidates = candidate_distractors(answer, pool, row.answer, random.Random(f"{seed}:{row.qa_id}"))
        ranked = [d for d, _ in rank_by_similarity(row.question, candidates, embedder)]
        for budget in budgets:
            yield row, answer, budget, fill_budget(answer, ranked, row.question, budget, count, count_text)


def mean_similarity(question: str, docs: Sequence[Document], embedder: str) -> float:
    """Mean cosine similarity of documents to a question (what a trial's distractors are binned by)."""
    if not docs:
        return float("nan")
    return sum(s for _, s in rank_by_similarity(question, docs, embedder)) / len(docs)


def spread_depths(k: int) -> list[float]:
    """k needle depths spread evenly through the context, away from the edges: 50 for one, 33/67 for two, ..."""
    return [100 * (i + 1) / (k + 1) for i in range(k)]


def place_needles(needles: Sequence[Document], distractors: Sequence[Document]) -> list[Document]:
    """The needles inserted into the distractors at spread depths (their order kept)."""
    docs = list(distractors)
    n_total = len(distractors) + len(needles)
    for needle, depth in zip(needles, spread_depths(len(needles))):
        docs.insert(min(depth_position(depth, n_total), len(docs)), needle)
    return docs


def questions_prompt(docs: Sequence[Document], questions: Sequence[str]) -> str:
    numbered = "\n".join(f"{i + 1}. {q}" for i, q in enumerate(questions))
    documents = "\n\n".join(render("document", index=i, text=d.text) for i, d in enumerate(docs))
    return render("answer_many_with_documents", documents=documents, questions=numbered)


def multi_needle(needles: Sequence[Document], questions: Sequence[str], candidates: Sequence[Document], budget: int,
                 count: Counter, count_text: Counter | None = None) -> str:
    """The prompt of one multi-needle trial: the needles at spread depths among distractors filling `budget`.

    Distractors are priced against all needles at once; the final prompt is counted exactly and distractors
    dropped until it fits. A budget the needles alone exceed is refused with the numbers.
    """
    combined = Document("needles", "\n\n".join(n.text for n in needles))
    distractors = fill_budget(combined, candidates, "\n".join(questions), budget, count, count_text)
    prompt = questions_prompt(place_needles(needles, distractors), questions)
    while distractors and count(prompt) > budget:
        distractors = distractors[:-1]
        prompt = questions_prompt(place_needles(needles, distractors), questions)
    if count(prompt) > budget:
        raise ValueError(f"context budget of {budget} tokens is smaller than the {len(needles)} needles and their "
                         f"questions alone ({count(prompt)} tokens): raise context_tokens or use fewer needles")
    return prompt


__all__ = ["mean_similarity", "multi_needle", "rank_by_similarity", "shared_fillers",
           "similar_fillers", "spread_depths"]
