"""The closed-book arm of the QA experiments (01, 02): every QA pair asked with no context at all (LongBench
v2's `--no_context`), judged like the rest. A pair the model answers without its passage says nothing about
reading: the reading gain is the accuracy with the context minus without it, paired by QA pair, and the
experiment's results are shown again on the pairs the model could not answer closed-book.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..models import complete
from ..prompts import render
from ..runs.folders import fingerprint
from ..runs.runner import Run, Step, answer_columns
from ..runs.samples import Sample
from ..scoring.judges import JUDGE, correctness_columns, judge_correct
from ..stats import proportion_summary, wilson_interval
from ..stats.clusters import cluster_paired_effect

KEY = ("qa_id", "fingerprint")


def closed_book_samples(qa: pd.DataFrame) -> list[Sample]:
    """One Sample per QA pair: the question alone, no document."""
    return [Sample(id=f"{r.qa_id}:closed_book", input=render("answer_closed_book", question=r.question),
                   target=r.answer, source=r, metadata={"qa_id": r.qa_id, "cluster": r.qa_id})
            for r in qa.itertuples(index=False)]


def run_closed_book(run: Run, model: str, judge_model: str, qa: pd.DataFrame, max_answer_tokens: int,
                    self_consistency: int, workers: int) -> pd.DataFrame:
    """Answer and judge every QA pair closed-book (resumable: closed_book.jsonl in the run folder)."""
    def answer(s: Sample, row: dict) -> dict:
        return answer_columns(complete(model, s.input, stage="closed-book answer", max_tokens=max_answer_tokens))

    def judge(s: Sample, row: dict) -> dict:
        verdict = judge_correct(judge_model, s.source.question, row["response"], s.target, self_consistency)
        return correctness_columns(verdict, row["response"], s.target)

    return run.trials(
        closed_book_samples(qa), log=run.log(KEY, "closed_book.jsonl"),
        key=lambda s: (s["qa_id"], fingerprint(model, judge_model, max_answer_tokens, s.input, JUDGE,
                                                self_consistency)),
        describe=lambda s: {"question": s.source.question, "gold": s.target, "model": model,
                            "judge_model": judge_model},
        steps=[Step("closed-book answer", answer, workers), Step("judge", judge, workers)])


def known_pairs(closed: pd.DataFrame) -> set:
    """The QA pairs the model answered right with no context (by the judge)."""
    if "judge_correct" not in closed:
        return set()
    return set(closed.loc[closed["judge_correct"].fillna(False).astype(bool), "qa_id"])


def reading_gain(items: pd.DataFrame, closed: pd.DataFrame) -> pd.DataFrame:
    """Accuracy with the context (every depth and length of a pair), without it, and the difference paired by
    QA pair with its cluster t interval; the with-context rate on the pairs not known closed-book too."""
    columns = ["arm", "n", "qa_pairs", "judge_acc", "lo", "hi"]
    if "judge_correct" not in items or "judge_correct" not in closed:
        return pd.DataFrame(columns=columns)
    closed_rate = closed.dropna(subset=["judge_correct"]).set_index("qa_id")["judge_correct"].astype(float)
    judged = items.dropna(subset=["judge_correct"])
    judged = judged[judged["qa_id"].isin(closed_rate.index)]
    unknown = judged[~judged["qa_id"].isin(known_pairs(closed))]
    rows = []
    for arm, part in (("with context", judged), ("closed book", closed.dropna(subset=["judge_correct"])),
                      ("with context, pairs not known closed-book", unknown)):
        right = int(part["judge_correct"].astype(bool).sum())
        lo, hi = wilson_interval(right, len(part)) if len(part) else (float("nan"), float("nan"))
        rows.append({"arm": arm, "n": len(part), "qa_pairs": part["qa_id"].nunique(),
                     "judge_acc": right / len(part) if len(part) else float("nan"), "lo": lo, "hi": hi})
    gain = cluster_paired_effect(judged["judge_correct"].astype(float).to_numpy(),
                                 judged["qa_id"].map(closed_rate).to_numpy(dtype=float), judged["qa_id"].to_numpy())
    # A difference of two rates lies within ±1: an interval past it is cut there (it says nothing beyond).
    rows.append({"arm": "reading gain (with − closed book, paired by QA pair)", "n": gain["n_pairs"],
                 "qa_pairs": gain["n_clusters"], "judge_acc": gain["effect"], "lo": float(np.clip(gain["effect_lo"], -1, 1)),
                 "hi": float(np.clip(gain["effect_hi"], -1, 1))})  # NaN stays NaN (one pair: no interval)
    return pd.DataFrame(rows, columns=columns)


def closed_book_arm(run: Run, on: bool, items: pd.DataFrame, model: str, judge_model: str, qa: pd.DataFrame,
                    max_answer_tokens: int, self_consistency: int, workers: int,
                    by: tuple[str, ...] = ("context_tokens", "depth")) -> tuple[dict, list[str]]:
    """The arm's tables (`closed_book`, `reading_gain`, and `by_<last of by>_not_known`: accuracy per `by` cell
    on the pairs not known closed-book) and its note; nothing when off."""
    if not on:
        return {}, []
    closed = run_closed_book(run, model, judge_model, qa, max_answer_tokens, self_consistency, workers)
    gain = reading_gain(items, closed)
    known = known_pairs(closed)
    rest = items[~items["qa_id"].isin(known)] if "qa_id" in items else items
    by_cell = proportion_summary(rest, list(by), "judge_correct", "judge") if len(rest) else pd.DataFrame()
    note = f"closed book: {len(known)} of {len(closed)} QA pairs answered right with no context (flagged)"
    if len(gain):
        g = gain.iloc[-1]
        note += (f"; reading gain {g['judge_acc']:+.2f} [{g['lo']:+.2f}, {g['hi']:+.2f}] (with − without the "
                 f"context, paired by QA pair, cluster t, {g['qa_pairs']} pairs)")
    return {"closed_book": closed, "reading_gain": gain, f"by_{by[-1]}_not_known": by_cell}, [note]
