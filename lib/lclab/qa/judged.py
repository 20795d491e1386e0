"""What 01 and 02 read from their correctness judge, and what they read where it cannot tell.

    reading = read_judge(judge, "answer_correct", card_texts)   # lclab.scoring.judge_reading
    value = read_value(reading)                 # "judge_correct", or "string_match" for an uninformative judge
    cells = corrected_cells(items, reading, ["context_tokens", "depth"])   # corrected_acc, _lo, _hi, _n
    judged_headline(items, reading, "all cells")                           # PPI++ / card-corrected / string match

The judge's raw rate is never a headline: the run's own labels (PPI++) or the shipped card (Rogan–Gladen)
correct it, and a judge whose card holds chance gives way to the judge-free string match everywhere a judged
number would stand (tables, figure, effects, controls), each saying so.
"""

from __future__ import annotations

import pandas as pd

from ..runs.runner import headline
from ..scoring.judge_reading import Reading
from ..scoring.labels import labels_for, row_key
from ..stats.clusters import cluster_mean_ci
from ..stats.corrected import corrected_difference
from ..stats.paired import paired_effect

JUDGED, MATCH = "judge_correct", "string_match"


def read_value(reading: Reading | None) -> str:
    """The item column a run's effects, lengths and controls read: the judge's verdict where its card says it can
    tell right from wrong (or where no card was read), else the string match."""
    return JUDGED if reading is None or reading.informative else MATCH


def own_labels(items: pd.DataFrame, reference: str = "gold") -> pd.Series:
    """Each item's label in data/judge_labels/answer_correct.csv (NaN where its text has none)."""
    if items.empty or "response" not in items:
        return pd.Series(float("nan"), index=items.index)
    keys = items.apply(lambda r: row_key(r, ("question", reference, "response")), axis=1)
    return labels_for(keys, "answer_correct").set_axis(items.index)


def corrected_cells(items: pd.DataFrame, reading: Reading, by: list[str], cluster: str = "qa_id") -> pd.DataFrame:
    """Per cell of `by`: the judged rate as the headline reads it (the labels' own rate where every item of the cell
    is labelled, PPI++ with enough labels, else corrected by the card: `corrected_acc`, `_lo`, `_hi`, `_n`), NaN
    where the judge is uninformative; what the figure draws for the judge."""
    cells = reading.cell_rates(items, by, JUDGED, cluster, own_labels(items)).rename(columns={
        "corrected": "corrected_acc", "corrected_lo": "corrected_lo", "corrected_hi": "corrected_hi"})
    if len(cells):
        n = items.dropna(subset=[JUDGED]).groupby(by).size().rename("corrected_n").reset_index()
        cells = cells.merge(n, on=by, how="left")
    return cells


def with_corrected(summary: pd.DataFrame, items: pd.DataFrame, reading: Reading, by: list[str],
                   cluster: str = "qa_id") -> pd.DataFrame:
    """A per-cell summary with the corrected judge rate beside the raw one, and the judge named on every row."""
    cells = corrected_cells(items, reading, by, cluster)
    out = summary.merge(cells, on=by, how="left") if len(cells) else summary.assign(
        corrected_acc=float("nan"), corrected_lo=float("nan"), corrected_hi=float("nan"), corrected_n=0,
        corrected_interval=None)
    # Each cell says how it was read: the labels, PPI++ or the card (a figure names that interval, not another).
    how = out["corrected_interval"].map({"labels, cluster t": "the labels' own rate",
                                         "PPI++, cluster bootstrap-t": "PPI++ from this run's labels",
                                         "card, Rogan–Gladen delta method": "the shipped card (Rogan–Gladen)"})
    return out.assign(judge=reading.judge.label, corrected_by=how.fillna(reading.uninformative_note))


def judged_headline(items: pd.DataFrame, reading: Reading, what: str, cluster: str = "qa_id",
                    reference: str = "gold") -> dict:
    """The run's one number: the judged rate as `Reading.rate` reads it (the labels' own rate where every judged
    item is labelled, PPI++ with ≥ 10 labels of its own, else the card's Rogan–Gladen), or where the judge is
    uninformative (and the items not all labelled) the string match with its cluster t interval."""
    judged = items.dropna(subset=[JUDGED]) if JUDGED in items else None
    got = reading.rate(judged[JUDGED], judged[cluster], own_labels(judged, reference), judged.get(f"{JUDGED}_p")) \
        if judged is not None else {}
    if judged is not None and (reading.informative or got["estimate"] == got["estimate"]):
        return headline(f"answer correct, {what} ({got['read_as']})", got["estimate"], got["lo"], got["hi"],
                        judge=reading.judge.label)
    scored = items.dropna(subset=[MATCH]) if MATCH in items else items.iloc[:0]
    got = cluster_mean_ci(scored[MATCH].astype(float), scored[cluster]) if len(scored) else {}
    return headline(f"string match, {what} ({reading.uninformative_note})", got.get("mean"), got.get("lo"),
                    got.get("hi"), judge=reading.judge.label)


def named_judge(tables: dict[str, pd.DataFrame], reading: Reading) -> dict[str, pd.DataFrame]:
    """The tables with the judge named on every row of those read from its verdicts ("... (self-judged)" where
    it is the model under test)."""
    return {name: t.assign(judge=reading.judge.label) if "read_from" in t and (t["read_from"] == JUDGED).any()
            else t for name, t in tables.items()}


def judge_notes(reading: Reading) -> list[str]:
    """The lines a judged run owes its reader: who judged and why, the card, and what is read from it."""
    lines = [f"judge: {reading.judge.label} ({reading.judge.why})", reading.line]
    if not reading.informative:
        lines.append(f"{reading.uninformative_note}: every judged table, the figure and the controls read the "
                     "string match instead (the raw verdicts stay in the items)")
    return lines


def labelled_difference(items: pd.DataFrame, arm: str, a: str, b: str, cluster: str = "qa_id") -> dict:
    """Arm `a` − arm `b` of the judged rate, corrected by the run's own labels as the summary rows read each arm:
    where every text of both is labelled, the labels' own paired difference (the paired test the effects table
    uses); else PPI++ per arm, paired by `cluster` (a QA pair) in a cluster bootstrap, NaN below MIN_LABELS labels
    in either arm (where the card's correction stands instead). Returns `labelled`, `_lo`, `_hi`, `labelled_n`
    (the fewer labelled QA pairs of the two arms) and `labelled_by` (which of the two readings)."""
    if JUDGED not in items or arm not in items:
        return {"labelled": float("nan"), "labelled_lo": float("nan"), "labelled_hi": float("nan"), "labelled_n": 0,
                "labelled_by": None}
    sides = [items[items[arm] == name].dropna(subset=[JUDGED]).drop_duplicates(cluster).set_index(cluster)
             for name in (a, b)]
    shared = sides[0].index.intersection(sides[1].index)
    labels = [own_labels(side.reset_index()).set_axis(side.index).loc[shared] for side in sides]
    if len(shared) and all(y.notna().all() for y in labels):  # every text labelled: the labels' own difference
        got = paired_effect(labels[0].tolist(), labels[1].tolist(), True)
        return {"labelled": got["effect"], "labelled_lo": got["effect_lo"], "labelled_hi": got["effect_hi"],
                "labelled_n": len(shared), "labelled_by": "every text labelled: the labels' own difference"}
    got = corrected_difference(sides[0].loc[shared, JUDGED], labels[0], sides[1].loc[shared, JUDGED], labels[1],
                               pd.Series(shared.astype(str)))
    return {"labelled": got["corrected"], "labelled_lo": got["corrected_lo"], "labelled_hi": got["corrected_hi"],
            "labelled_n": min(got["n_labelled_a"], got["n_labelled_b"]), "labelled_by": "PPI++ per arm"}
