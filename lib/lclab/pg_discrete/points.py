"""The points of the discrete dataset (seed 002): questions, retrieved candidates, manual labels.

A point is a context of several retrieved chunks paired with a question's
golden response. Every point carries a manual label read from a reviewed file
and matched on (question, chunk ids, context text hash), so a label never
lands on other text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..paths import repo_path
from ..text.corpus import passage_sha1
from ..text.hand_tables import read_hand_table

QUESTION_COLUMNS = ("question_id", "essay", "question", "golden_answer", "evidence")
LABEL_COLUMNS = ("point_id", "question_id", "candidate", "chunk_ids", "context_sha1", "label", "ambiguous", "reason")
CHUNK_SEPARATOR = "\n\n"
SCORERS = {"weighted": "logprob-weighted p(1)", "sampled": "sampled 0/1 token"}  # score column -> name


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def load_questions(path: str | Path, essays: dict[str, str]) -> pd.DataFrame:
    """The hand-written question set, checked against the corpus it claims to come from.

    Every row needs all columns filled, a known essay, and an `evidence` quote
    that occurs in that essay (white space aside): a question whose source text
    is not there would be scored against the wrong documents.
    """
    path = repo_path(path)
    df = read_hand_table(path, QUESTION_COLUMNS, "question file")
    problems = []
    for i, row in df.iterrows():
        where = f"{path.name} row {i + 2} ({row['question_id'] or 'no id'})"
        empty = [c for c in QUESTION_COLUMNS if not row[c].strip()]
        if empty:
            problems.append(f"{where}: empty {empty}")
        elif row["essay"] not in essays:
            problems.append(f"{where}: essay {row['essay']!r} is not in the corpus")
        elif _squash(row["evidence"]) not in _squash(essays[row["essay"]]):
            problems.append(f"{where}: the evidence quote does not occur in essay {row['essay']!r}")
    if df["question_id"].duplicated().any():
        problems.append(f"{path.name}: duplicate question ids {sorted(set(df.loc[df['question_id'].duplicated(), 'question_id']))}")
    if problems:
        raise ValueError("bad question file:\n  " + "\n  ".join(problems))
    return df


def chosen_questions(questions: pd.DataFrame, n_questions: int, question_ids: list[str]) -> pd.DataFrame:
    """The questions a run asks: those named in `question_ids` (all when it is empty), in the file's order, then
    the first `n_questions` of them (all when 0). An id the file does not hold is refused, not skipped."""
    if question_ids:
        unknown = sorted(set(question_ids) - set(questions["question_id"]))
        if unknown:
            raise ValueError(f"question_ids {unknown} are not in the question file "
                             f"(it holds {', '.join(questions['question_id'])})")
        questions = questions[questions["question_id"].isin(question_ids)]
    return questions.head(n_questions) if n_questions else questions


def candidate_ranks(top_k: int, n_positive: int, n_negative: int) -> dict[str, list[int]]:
    """{"positive": the first n_positive ranks, "negative": the last n_negative} of the top k (1-based)."""
    if min(n_positive, n_negative) < 1 or n_positive + n_negative > top_k:
        raise ValueError(f"need 1+ positive and 1+ negative candidates within top {top_k}, "
                         f"got {n_positive} + {n_negative}")
    return {"positive": list(range(1, n_positive + 1)), "negative": list(range(top_k - n_negative + 1, top_k + 1))}


def retrieve_points(index, questions: pd.DataFrame, top_k: int, n_positive: int, n_negative: int) -> pd.DataFrame:
    """Two points per question: its top chunks joined (positive candidate) and its last ones (negative).

    The seed's 15 questions give 30 points, half positive and half negative, so
    a point is a context of several retrieved chunks, not one chunk.
    """
    ranks = candidate_ranks(top_k, n_positive, n_negative)
    rows = []
    for q in questions.itertuples(index=False):
        hits = index.search(q.question, top_k)
        if len(hits) < top_k:
            raise ValueError(f"{q.question_id}: the index returned {len(hits)} chunks, fewer than top_k={top_k}")
        for candidate, picked in ranks.items():
            chosen = [hits[r - 1] for r in picked]
            context = CHUNK_SEPARATOR.join(h.text for h in chosen)
            rows.append({"point_id": f"{q.question_id}:{candidate[:3]}", "question_id": q.question_id,
                         "candidate": candidate, "ranks": ",".join(map(str, picked)),
                         "chunk_ids": ",".join(h.chunk_id for h in chosen), "context_sha1": passage_sha1(context),
                         "retrieval_scores": ",".join(f"{h.score:.4f}" for h in chosen), "question": q.question,
                         "golden_answer": q.golden_answer, "essay": q.essay, "context": context})
    return pd.DataFrame(rows)


def read_labels(path: str | Path) -> pd.DataFrame:
    """Manual labels: label 0/1, ambiguous yes/no, a reason for each; anything else is an error."""
    path = repo_path(path)
    df = read_hand_table(path, LABEL_COLUMNS, "label file")
    bad = [f"row {i + 2} ({r.point_id}): label {r.label!r}" for i, r in enumerate(df.itertuples())
           if r.label.strip() not in ("0", "1")]
    bad += [f"row {i + 2} ({r.point_id}): ambiguous {r.ambiguous!r}" for i, r in enumerate(df.itertuples())
            if r.ambiguous.strip().lower() not in ("yes", "no")]
    if bad:
        raise ValueError(f"{path}: label must be 0 or 1 and ambiguous yes or no: " + "; ".join(bad))
    df["label"] = df["label"].astype(int)
    df["ambiguous"] = df["ambiguous"].str.strip().str.lower() == "yes"
    return df


def attach_labels(points: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Points with `label`, `ambiguous`, `reason`; `labelled` is False where no label matches the exact text."""
    merged = points.merge(labels[["question_id", "chunk_ids", "context_sha1", "label", "ambiguous", "reason"]],
                          on=["question_id", "chunk_ids", "context_sha1"], how="left")
    merged["labelled"] = merged["label"].notna()
    return merged


def usable(scored: pd.DataFrame) -> pd.DataFrame:
    """The points the metrics use: labelled, not marked ambiguous, and scored (a run whose every call failed
    has no score columns at all: then no point is usable)."""
    if not set(SCORERS) <= set(scored.columns):
        return scored.iloc[:0].reindex(columns=[*scored.columns, *(c for c in SCORERS if c not in scored)])
    return scored[scored["labelled"] & ~scored["ambiguous"].fillna(False).astype(bool)]
