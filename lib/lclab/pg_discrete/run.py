"""The discrete retrieval-accuracy dataset (seed 002): does a retrieved chunk contain the golden response?

1. Index the essays in 2000-character chunks; retrieve the top 5 for each question.
2. The first two chunks, joined, make the positive candidate; the last two the
   negative one (rank 3 is not used); each is paired with the question's golden
   response: 30 points for 15 questions, half of each class, as in the seed.
3. Every point carries a label the maintainer wrote (`points.py`); ambiguous points are
   dropped; points without a label are listed for review.
4. Every model scores every point once: the logprob-weighted score
   p(1) / (p(0) + p(1)) of the first token, and the sampled token itself, read
   from the same greedy reply.
5. ROC AUC, accuracy at 0.5 and calibration against the maintainer's labels, per
   model and scorer, with bootstrap CIs.
"""

from __future__ import annotations

from dataclasses import asdict, replace

import pandas as pd

from ..models import LogprobsUnavailableError, MissingAPIKeyError
from ..models.embeddings import get_embedder
from ..prompts import template
from ..retrieval.chunking import Chunker
from ..retrieval.vectorstores import open_corpus_index
from ..runs.folders import fingerprint
from ..pipeline import Given, Retrieved, Stage
from ..runs.runner import Result, Run, headline, skipped_note
from ..runs.samples import Sample
from ..scoring.logprob import sampled_score, score, score_request
from ..scoring.score import LAYOUT
from ..scoring.score_eval import (
    calibration_table,
    expected_calibration_error,
    paired_auc_difference,
    separation_summary,
)
from ..text.corpus import load_corpus
from .parameters import Parameters
from .points import (CHUNK_SEPARATOR, LABEL_COLUMNS, SCORERS, attach_labels, candidate_ranks, chosen_questions,
                     load_questions, read_labels, retrieve_points, usable)

EXPERIMENT = "pg_discrete"
KEY = ("model", "point_id", "fingerprint")


SCORE_STAGE = "score"  # the gateway stage of each point's one-token score (the run's and the plan's row)


def score_point(given: Given, s: Sample, row: dict) -> dict:
    """Both scorers of one point under its model (`s["model"]`): the logprob-weighted p(1) (`weighted`, with its
    probabilities, the mass outside the labels and how it was read) and the sampled 0/1 token (`sampled`; None for
    any other token)."""
    result = score(s["model"], s.input, stage=SCORE_STAGE, require_logprobs=given.p.require_logprobs)
    sampled = sampled_score(result.sampled or "")
    return {**result.columns("weighted", error="error", answer="sampled_token"), "sampled": sampled.value}


# One one-token scoring call per (model, point): the template with the question, the golden answer and the
# candidate's k retrieved chunks, joined.
SCORE = Stage(SCORE_STAGE, request=lambda p: score_request(), prompt=lambda s: s.input,
              template="context_contains_answer",
              known=lambda s: {"question": s.source.question, "golden_answer": s.source.golden_answer},
              retrieved=Retrieved("context", k=lambda s: s["k"], pool=lambda s: s["pool"]), write=score_point)


def read_inputs(p: Parameters) -> tuple:
    """What a run reads before any call: the corpus, its chosen questions, the chunker and the corpus's chunks."""
    loaded = load_corpus(p.corpus)
    questions = load_questions(p.questions_path, {d.id: d.text for d in loaded.documents})
    questions = chosen_questions(questions, p.n_questions, p.question_ids)
    chunker = Chunker(p.chunk_chars, "chars")
    return loaded, questions, chunker, chunker.split(loaded.documents)


def prepare(p: Parameters, points: pd.DataFrame | None = None) -> list[Sample]:
    """Every (model, point) as a Sample, its question the cluster, its context the k chunks retrieval found.
    Given the retrieved `points` (the run), each holds its exact scoring prompt; before retrieval (the plan), what
    is known: its question and golden answer, its k, and the corpus's chunks retrieval chooses from (`pool`), each
    with the separator that joins them."""
    if points is not None:
        found = [Sample(id=f"{m}:{x.point_id}", target=None, source=x, input=None,
                        metadata={"model": m, "point_id": x.point_id, "cluster": getattr(x, "question_id", x.point_id)})
                 for m in p.models for x in points.itertuples()]
        return [replace(s, input=SCORE.with_retrieved(s, s.source.context)) for s in found]
    _, questions, _, chunks = read_inputs(p)
    pool = [c.text + CHUNK_SEPARATOR for c in chunks]
    ranks = candidate_ranks(p.top_k, p.n_positive, p.n_negative)
    return [Sample(id=f"{m}:{q.question_id}:{candidate[:3]}", target=None, source=q, input=None,
                   metadata={"model": m, "point_id": f"{q.question_id}:{candidate[:3]}", "k": len(picked),
                             "pool": pool, "cluster": q.question_id})
            for m in p.models for q in questions.itertuples() for candidate, picked in ranks.items()]


def score_points(run: Run, points: pd.DataFrame, p: Parameters) -> pd.DataFrame:
    """Every model scores every point once; finished points are read back from the log, not rescored."""
    return run.stages(
        prepare(p, points), [SCORE], Given(p), log=run.log(KEY, "scores.jsonl"),
        key=lambda s: (s["model"], s["point_id"], fingerprint(s["model"], LAYOUT, template("context_contains_answer"),
                                                                s.source.context_sha1, s.source.question,
                                                                s.source.golden_answer)),
        describe=lambda s: {}, stop_on=(LogprobsUnavailableError, MissingAPIKeyError))


def separation(scored: pd.DataFrame) -> pd.DataFrame:
    """Per model and scorer: ROC AUC and accuracy at 0.5 against the maintainer's labels, with 95 % CIs."""
    rows = []
    for model, group in usable(scored).groupby("model", sort=False):
        for scorer, label in SCORERS.items():
            summary = separation_summary(group["label"].astype(int), group[scorer], clusters=group["question_id"])
            fallback = int((group["weighted_source"] == "sampled").sum()) if "weighted_source" in group else 0
            ece = expected_calibration_error(group["label"].astype(int), group[scorer])
            rows.append({"model": model, "scorer": label, **summary, "ece": ece, "sampled_fallback": fallback})
    return pd.DataFrame(rows)


def models_paired(scored: pd.DataFrame) -> pd.DataFrame:
    """Each model against the first, per scorer: the AUC difference on the same points, with a bootstrap
    95 % CI and p-value that resample questions (a question's positive and negative points together)."""
    points = usable(scored)
    models = list(dict.fromkeys(points["model"]))
    rows = []
    for other in models[1:]:
        for scorer, label in SCORERS.items():
            a = points[points["model"] == other].set_index("point_id")
            b = points[points["model"] == models[0]].set_index("point_id")
            shared = a.index.intersection(b.index)
            result = paired_auc_difference(a.loc[shared, "label"].astype(int), a.loc[shared, scorer],
                                           b.loc[shared, scorer], clusters=a.loc[shared, "question_id"])
            rows.append({"comparison": f"{other} − {models[0]}", "scorer": label, **result})
    return pd.DataFrame(rows)


def calibration(scored: pd.DataFrame, n_bins: int = 5) -> pd.DataFrame:
    """Calibration bins per model and scorer (the sampled scorer only fills the end bins)."""
    frames = []
    for model, group in usable(scored).groupby("model", sort=False):
        for scorer, label in SCORERS.items():
            table = calibration_table(group["label"].astype(int), group[scorer], n_bins)
            frames.append(table.assign(model=model, scorer=label))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def run_discrete(p: Parameters) -> Result:
    if not p.models:
        raise ValueError("models is empty: give at least one model spec")
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p)) as run:
        loaded, questions, chunker, chunks = read_inputs(p)
        index = open_corpus_index(p.store, p.corpus, chunker.name, get_embedder(p.embedder),
                                  directory=run.dir / "chroma")
        indexing = index.add(chunks)

        points = attach_labels(retrieve_points(index, questions, p.top_k, p.n_positive, p.n_negative),
                               read_labels(p.labels_path))
        to_label = run.dir / "points_to_label.csv"
        unlabelled = points[~points["labelled"]]
        if len(unlabelled):
            unlabelled.assign(label="", ambiguous="", reason="")[
                list(LABEL_COLUMNS) + ["question", "golden_answer", "context"]].to_csv(to_label, index=False)
        elif to_label.exists():
            to_label.unlink()

        scores = score_points(run, points, p)
        scored = scores.merge(points, on="point_id", how="left")
        notes = [f"{len(chunks)} chunks in index {index.name!r} ({index.store_name}); {indexing.written} written "
                 "this run", run.resume_note("scores.jsonl")] + point_notes(points, to_label)
        notes += score_notes(scored) + skipped_note(loaded.skipped)
        table = separation(scored)
        first = table.iloc[0] if len(table) else {}
        return run.result(table, items=scored, notes=notes,
                          headline=headline(f"ROC AUC, {first.get('model', '?')}, {first.get('scorer', '?')}",
                                            first.get("auc"), first.get("auc_lo"), first.get("auc_hi")),
                          tables={"points": points, "calibration": calibration(scored),
                                  "models_paired": models_paired(scored)})


def point_notes(points: pd.DataFrame, to_label) -> list[str]:
    labelled = points[points["labelled"]]
    ambiguous = int(labelled["ambiguous"].astype(bool).sum())
    kept = labelled[~labelled["ambiguous"].astype(bool)]
    lines = [
        f"{len(points)} points ({(points['candidate'] == 'positive').sum()} positive and "
        f"{(points['candidate'] == 'negative').sum()} negative candidates) for {points['question_id'].nunique()} "
        "questions",
        f"maintainer's labels: {len(labelled)} labelled, {ambiguous} ambiguous and dropped, {len(kept)} remain: "
        f"{int((kept['label'] == 0).sum())} negative + {int((kept['label'] == 1).sum())} positive",
        f"candidate class vs the maintainer's label: {int((kept['label'] == (kept['candidate'] == 'positive')).sum())} "
        f"of {len(kept)} agree",
    ]
    if len(points) > len(labelled):
        lines.append(f"{len(points) - len(labelled)} points have no label for their exact text "
                     f"(another embedder, store or corpus?): they are left out; label them in {to_label}")
    return lines


def score_notes(scored: pd.DataFrame) -> list[str]:
    lines = []
    failed = scored[scored["weighted"].isna()] if "weighted" in scored else scored.iloc[:0]
    if len(failed):
        lines.append(f"{len(failed)} scores could not be read (result.failures); they are left out, never "
                     "counted as 0")
    fallback = int((scored["weighted_source"] == "sampled").sum()) if "weighted_source" in scored else 0
    if fallback:
        lines.append(f"{fallback} scores fell back to the sampled token (the backend gave no logprobs)")
    return lines
