"""The closed-book arm of the QA experiments (01, 02): every QA pair asked with no context at all (LongBench
v2's `--no_context`), judged like the rest. A pair the model answers without its passage says nothing about
reading: the reading gain is the accuracy with the context minus without it, paired by QA pair, and the
experiment's results are shown again on the pairs the model could not answer closed-book.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..models import Request
from ..pipeline import Given, Stage
from ..prompts import render
from ..runs.folders import fingerprint
from ..runs.runner import Run
from ..runs.samples import Sample
from ..scoring.judge_kinds import correctness_judge
from ..scoring.judges import JUDGE
from ..stats import proportion_summary, wilson_interval
from ..stats.clusters import cluster_paired_effect
from .judged import read_value

KEY = ("qa_id", "fingerprint")
# The arm's two stages (p: the experiment's Parameters, with model, judge_model, max_answer_tokens,
# self_consistency and max_workers): the answer with no context, and the correctness judge on it.
ANSWER = Stage("closed-book answer", request=lambda p: Request(max_tokens=p.max_answer_tokens),
               prompt=lambda s: s.input)
STAGES = (ANSWER, correctness_judge(reads=ANSWER.name))


def closed_book_samples(qa: pd.DataFrame) -> list[Sample]:
    """One Sample per QA pair: the question alone, no document."""
    return [Sample(id=f"{r.qa_id}:closed_book", input=render("answer_closed_book", question=r.question),
                   target=r.answer, source=r, metadata={"qa_id": r.qa_id, "cluster": r.qa_id})
            for r in qa.itertuples(index=False)]


def run_closed_book(run: Run, p, judge_model: str, qa: pd.DataFrame) -> pd.DataFrame:
    """Answer and judge every QA pair closed-book (resumable: closed_book.jsonl in the run folder)."""
    return run.stages(
        closed_book_samples(qa), STAGES, Given(p, judge_model), log=run.log(KEY, "closed_book.jsonl"),
        key=lambda s: (s["qa_id"], fingerprint(p.model, judge_model, p.max_answer_tokens, s.input, JUDGE,
                                                p.self_consistency)),
        describe=lambda s: {"question": s.source.question, "gold": s.target, "model": p.model,
                            "judge_model": judge_model})


def known_pairs(closed: pd.DataFrame, value: str = "judge_correct") -> set:
    """The QA pairs the model answered right with no context (by `value`: the judge, or the string match)."""
    if value not in closed:
        return set()
    return set(closed.loc[closed[value].fillna(False).astype(bool), "qa_id"])


def reading_gain(items: pd.DataFrame, closed: pd.DataFrame, value: str = "judge_correct", reading=None
                 ) -> pd.DataFrame:
    """Accuracy with the context (every depth and length of a pair), without it, and the difference paired by
    QA pair with its cluster t interval; the with-context rate on the pairs not known closed-book too. Read from
    `value`; with the judge's `reading`, each judged rate and the gain also corrected by its card."""
    columns = ["arm", "n", "qa_pairs", "acc", "lo", "hi", "corrected", "corrected_lo", "corrected_hi", "read_from"]
    if value not in items or value not in closed:
        return pd.DataFrame(columns=columns)
    closed_rate = closed.dropna(subset=[value]).set_index("qa_id")[value].astype(float)
    scored = items.dropna(subset=[value])
    scored = scored[scored["qa_id"].isin(closed_rate.index)]
    unknown = scored[~scored["qa_id"].isin(known_pairs(closed, value))]
    correct = reading is not None and value == "judge_correct"
    rows = []
    for arm, part in (("with context", scored), ("closed book", closed.dropna(subset=[value])),
                      ("with context, pairs not known closed-book", unknown)):
        right = int(part[value].astype(bool).sum())
        lo, hi = wilson_interval(right, len(part)) if len(part) else (float("nan"), float("nan"))
        fixed = reading.rate(part[value], part["qa_id"], None, part.get(f"{value}_p")) if correct and len(part) \
            else {}
        rows.append({"arm": arm, "n": len(part), "qa_pairs": part["qa_id"].nunique(),
                     "acc": right / len(part) if len(part) else float("nan"), "lo": lo, "hi": hi,
                     "corrected": fixed.get("estimate"), "corrected_lo": fixed.get("lo"),
                     "corrected_hi": fixed.get("hi")})
    gain = cluster_paired_effect(scored[value].astype(float).to_numpy(),
                                 scored["qa_id"].map(closed_rate).to_numpy(dtype=float), scored["qa_id"].to_numpy())
    fixed = reading.difference(gain["effect"], gain["effect_lo"], gain["effect_hi"], gain["n_clusters"]) \
        if correct else {}
    # A difference of two rates lies within ±1: an interval past it is cut there (it says nothing beyond).
    rows.append({"arm": "reading gain (with − closed book, paired by QA pair)", "n": gain["n_pairs"],
                 "qa_pairs": gain["n_clusters"], "acc": gain["effect"], "lo": float(np.clip(gain["effect_lo"], -1, 1)),
                 "hi": float(np.clip(gain["effect_hi"], -1, 1)),  # NaN stays NaN (one pair: no interval)
                 "corrected": fixed.get("corrected"), "corrected_lo": fixed.get("corrected_lo"),
                 "corrected_hi": fixed.get("corrected_hi")})
    return pd.DataFrame(rows, columns=columns).assign(read_from=value)


def closed_book_arm(run: Run, p, items: pd.DataFrame, reading, qa: pd.DataFrame,
                    by: tuple[str, ...] = ("context_tokens", "depth")) -> tuple[dict, list[str]]:
    """The arm's tables (`closed_book`, `reading_gain`, and `by_<last of by>_not_known`: accuracy per `by` cell
    on the pairs not known closed-book) and its note; nothing unless `p.closed_book`. Judged by `reading.judge`
    and read from its verdicts where its card says it can tell (else from the string match, lclab.qa.judged)."""
    if not p.closed_book:
        return {}, []
    closed = reading.read_items(run_closed_book(run, p, reading.judge.spec, qa), "judge_correct")
    value = read_value(reading)
    gain = reading_gain(items, closed, value, reading)
    known = known_pairs(closed, value)
    rest = items[~items["qa_id"].isin(known)] if "qa_id" in items else items
    by_cell = proportion_summary(rest, list(by), value, "acc") if len(rest) else pd.DataFrame()
    what = "by the judge" if value == "judge_correct" else f"by the string match ({reading.uninformative_note})"
    note = f"closed book: {len(known)} of {len(closed)} QA pairs answered right with no context {what} (flagged)"
    if len(gain):
        g = gain.iloc[-1]
        note += (f"; reading gain {g['acc']:+.2f} [{g['lo']:+.2f}, {g['hi']:+.2f}] (with − without the "
                 f"context, paired by QA pair, cluster t, {g['qa_pairs']} pairs, read from {value})")
        if g["corrected"] == g["corrected"] and g["corrected"] is not None:
            note += (f"; corrected by the judge's card {g['corrected']:+.2f} [{g['corrected_lo']:+.2f}, "
                     f"{g['corrected_hi']:+.2f}]")
    return {"closed_book": closed, "reading_gain": gain, f"by_{by[-1]}_not_known": by_cell}, [note]
