"""The discrete retrieval-accuracy dataset (seed 002): does a retrieved chunk contain the golden response?

1. Index the essays in 2000-character chunks; retrieve the top 5 for each question.
2. The first two chunks, joined, make the positive candidate; the last two the
   negative one (rank 3 is not used); each is paired with the question's golden
   response: 30 points for 15 questions, half of each class, as in the seed.
3. Every point carries a manual label, read from a reviewed file and matched on
   (question, chunk ids, context text hash), so a label never lands on other text.
   Ambiguous points are dropped; points without a label are listed for review.
4. Every model scores every point once: the logprob-weighted score
   p(1) / (p(0) + p(1)) of the first token, and the sampled token itself, read
   from the same greedy reply.
5. ROC AUC, accuracy at 0.5 and calibration against the manual labels, per
   model and scorer, with bootstrap CIs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from .chunking import Chunk, Chunker
from .corpus import load_corpus
from .embeddings import get_embedder
from .errors import LogprobsUnavailableError, MissingAPIKeyError
from .logprob_scoring import score
from .parallel import map_items
from .prompts import render, template
from .qa import passage_sha1
from .paths import repo_path
from .tables import read_hand_table
from .runs import ItemLog, fingerprint, run_dir
from .score_eval import calibration_table, separation_summary
from .vectorstores import open_corpus_index

EXPERIMENT = "pg_discrete"
QUESTION_COLUMNS = ("question_id", "essay", "question", "golden_answer", "evidence")
LABEL_COLUMNS = ("point_id", "question_id", "candidate", "chunk_ids", "context_sha1", "label", "ambiguous", "reason")
CHUNK_SEPARATOR = "\n\n"
SCORERS = {"weighted": "logprob-weighted p(1)", "sampled": "sampled 0/1 token"}
KEY = ("model", "point_id", "fingerprint")


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


def score_point(model: str, point, require_logprobs: bool) -> dict:
    prompt = render("context_contains_answer", context=point.context, question=point.question,
                    golden_answer=point.golden_answer)
    result = score(model, prompt, stage="score", require_logprobs=require_logprobs)
    sampled = float(result.sampled) if result.sampled in ("0", "1") else None
    return {"weighted": result.score, "sampled": sampled, "sampled_token": result.sampled,
            "p1": result.probabilities.get("1"), "mass_outside": result.mass_outside, "source": result.source,
            "error": result.problem}


def score_points(points: pd.DataFrame, models: list[str], require_logprobs: bool, log: ItemLog,
                 max_workers: int) -> pd.DataFrame:
    """Every model scores every point once; finished points are read back from the log, not rescored."""
    key = lambda model, p: (model, p.point_id, fingerprint(  # noqa: E731
        model, template("context_contains_answer"), p.context_sha1, p.question, p.golden_answer))
    wanted = {key(m, p) for m in models for p in points.itertuples()}
    done = log.done()
    for model in models:
        pending = [p for p in points.itertuples() if key(model, p) not in done]

        def run(p, model=model):
            row = {"model": model, "point_id": p.point_id, "fingerprint": key(model, p)[2]}
            row.update(score_point(model, p, require_logprobs))
            log.append(row)
            return row

        outcomes = map_items(run, pending, max_workers, desc=f"score {model}",
                             stop_on=(LogprobsUnavailableError, MissingAPIKeyError))
        for out in outcomes:
            if not out.ok:  # the call itself failed (timeout, context window): recorded, retried next run
                p = out.item
                log.append({"model": model, "point_id": p.point_id, "fingerprint": key(model, p)[2],
                            "weighted": None, "sampled": None, "error": out.error})
    return log.latest(wanted)


def usable(scored: pd.DataFrame) -> pd.DataFrame:
    """The points the metrics use: labelled, and not marked ambiguous."""
    return scored[scored["labelled"] & ~scored["ambiguous"].fillna(False).astype(bool)]


def separation(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model and scorer: ROC AUC and accuracy at 0.5 against the manual labels, with 95 % CIs."""
    rows = []
    for model, group in usable(scored).groupby("model", sort=False):
        for scorer, label in SCORERS.items():
            summary = separation_summary(group["label"].astype(int), group[scorer])
            fallback = int((group["source"] == "sampled").sum()) if "source" in group else 0
            rows.append({"model": model, "scorer": label, **summary, "sampled_fallback": fallback})
    return pd.DataFrame(rows)


def calibration(scored: pd.DataFrame, n_bins: int = 5) -> pd.DataFrame:
    """Calibration bins per model and scorer (the sampled scorer only fills the end bins)."""
    frames = []
    for model, group in usable(scored).groupby("model", sort=False):
        for scorer, label in SCORERS.items():
            table = calibration_table(group["label"].astype(int), group[scorer], n_bins)
            frames.append(table.assign(model=model, scorer=label))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def run_discrete(
    models: list[str],
    corpus: str,
    questions_path: str,
    labels_path: str,
    n_questions: int,
    store: str,
    embedder: str,
    chunk_chars: int,
    top_k: int,
    n_positive: int,
    n_negative: int,
    require_logprobs: bool,
    max_workers: int,
    run_name: str,
) -> dict:
    if not models:
        raise ValueError("models is empty: give at least one model spec")
    out_dir = run_dir(EXPERIMENT, run_name)
    loaded = load_corpus(corpus)
    essays = {d.id: d.text for d in loaded.documents}
    questions = load_questions(questions_path, essays)
    if n_questions:
        questions = questions.head(n_questions)

    chunker = Chunker(chunk_chars, "chars")
    chunks: list[Chunk] = chunker.split(loaded.documents)
    emb = get_embedder(embedder)
    index = open_corpus_index(store, corpus, chunker.name, emb, directory=out_dir / "chroma")
    indexing = index.add(chunks)

    points = retrieve_points(index, questions, top_k, n_positive, n_negative)
    points = attach_labels(points, read_labels(labels_path))
    points.to_csv(out_dir / "points.csv", index=False)
    unlabelled = points[~points["labelled"]]
    to_label = out_dir / "points_to_label.csv"
    if len(unlabelled):
        unlabelled.assign(label="", ambiguous="", reason="")[
            list(LABEL_COLUMNS) + ["question", "golden_answer", "context"]].to_csv(to_label, index=False)
    elif to_label.exists():
        to_label.unlink()

    log = ItemLog(out_dir / "scores.jsonl", KEY)
    scores = score_points(points, models, require_logprobs, log, max_workers)
    scored = scores.merge(points, on="point_id", how="left")
    table = separation(scored)
    bins = calibration(scored)
    table.to_csv(out_dir / "separation.csv", index=False)
    bins.to_csv(out_dir / "calibration.csv", index=False)
    return {"points": points, "scored": scored, "separation": table, "calibration": bins, "dir": out_dir,
            "indexing": indexing, "n_chunks": len(chunks), "index": index, "to_label": to_label,
            "skipped_files": loaded.skipped}


def describe(run: dict) -> str:
    points = run["points"]
    labelled = points[points["labelled"]]
    ambiguous = int(labelled["ambiguous"].astype(bool).sum())
    kept = labelled[~labelled["ambiguous"].astype(bool)]
    lines = [
        f"{run['n_chunks']} chunks in index {run['index'].name!r} ({run['index'].store_name}); "
        f"{run['indexing'].written} written this run",
        f"{len(points)} points ({(points['candidate'] == 'positive').sum()} positive and "
        f"{(points['candidate'] == 'negative').sum()} negative candidates) for {points['question_id'].nunique()} "
        "questions",
        f"manual labels: {len(labelled)} labelled, {ambiguous} ambiguous and dropped, {len(kept)} remain: "
        f"{int((kept['label'] == 0).sum())} negative + {int((kept['label'] == 1).sum())} positive",
        f"candidate class vs manual label: {int((kept['label'] == (kept['candidate'] == 'positive')).sum())} "
        f"of {len(kept)} agree",
    ]
    if len(points) > len(labelled):
        lines.append(f"{len(points) - len(labelled)} points have no manual label for their exact text "
                     f"(another embedder, store or corpus?): they are left out; label them in {run['to_label']}")
    scored = run["scored"]
    failed = scored[scored["weighted"].isna()] if "weighted" in scored else scored.iloc[:0]
    if len(failed):
        lines.append(f"{len(failed)} scores could not be read (see the table below); they are left out, never "
                     "counted as 0")
    fallback = int((scored.get("source") == "sampled").sum()) if "source" in scored else 0
    if fallback:
        lines.append(f"{fallback} scores fell back to the sampled token (the backend gave no logprobs)")
    if run["skipped_files"]:
        lines.append(f"{len(run['skipped_files'])} corpus files skipped: {run['skipped_files']}")
    return "\n".join(lines)
