"""Retrieval and answer-quality tables of notebook 06, from the stored rankings and verdicts."""

from __future__ import annotations

import pandas as pd

from ..retrieval.metrics import METRICS
from ..stats import bootstrap_mean_ci, proportion_summary
from .stages import judges



def retrieval_curves(items: pd.DataFrame, max_k: int) -> pd.DataFrame:
    """Mean of every metric at k = 1..max_k per question set, with bootstrap 95 % CIs for recall and precision."""
    rows = []
    scored = items[items["retrieved"].notna()] if "retrieved" in items else items.iloc[:0]
    for set_name, group in scored.groupby("set", sort=False):
        for k in range(1, max_k + 1):
            values = {name: [fn(r, rel, k) for r, rel in zip(group["retrieved"], group["relevant_chunks"])]
                      for name, fn in METRICS.items()}
            row = {"set": set_name, "k": k, "n": len(group),
                   "undefined": sum(v is None for v in values["recall"])}
            for name, vals in values.items():
                defined = [v for v in vals if v is not None]
                row[name] = sum(defined) / len(defined) if defined else float("nan")
            for name in ("recall", "precision"):
                row[f"{name}_lo"], row[f"{name}_hi"] = bootstrap_mean_ci(values[name])
            rows.append(row)
    return pd.DataFrame(rows)


def seed_numbers(curves: pd.DataFrame) -> pd.DataFrame:
    """The seed's numbers: single-chunk recall@1..10 and precision@1; multi-chunk P, R, F1 at k = 3."""
    rows = []
    if "set" not in curves:  # no question reached retrieval (every generating call failed)
        return pd.DataFrame(columns=["set", "metric", "value", "lo", "hi", "n"])
    single = curves[curves["set"] == "single"]
    for r in single.itertuples():
        rows.append({"set": "single", "metric": f"recall@{r.k}", "value": r.recall, "lo": r.recall_lo,
                     "hi": r.recall_hi, "n": r.n})
    for r in single[single["k"] == 1].itertuples():
        rows.append({"set": "single", "metric": "precision@1", "value": r.precision, "lo": r.precision_lo,
                     "hi": r.precision_hi, "n": r.n})
    for r in curves[(curves["set"] == "multi") & (curves["k"] == 3)].itertuples():
        rows += [{"set": "multi", "metric": "precision@3", "value": r.precision, "lo": r.precision_lo,
                  "hi": r.precision_hi, "n": r.n},
                 {"set": "multi", "metric": "recall@3", "value": r.recall, "lo": r.recall_lo, "hi": r.recall_hi,
                  "n": r.n},
                 {"set": "multi", "metric": "F1@3", "value": r.f1, "lo": float("nan"), "hi": float("nan"),
                  "n": r.n}]
    return pd.DataFrame(rows)


def answer_quality(items: pd.DataFrame, readings: dict | None = None) -> pd.DataFrame:
    """Judge, relevance and faithfulness rates per question set: the judge's raw rate (Wilson 95 % CI), and with
    each judge's `readings` (lclab.scoring.judge_reading, by column) the rate corrected by its shipped card with
    its interval over questions, or "judge uninformative on <kind>" where the card holds chance (no number)."""
    frames = []
    for column, label in ((kind.column, kind.rate) for kind, _ in judges()):
        if column not in items:
            continue
        s = proportion_summary(items, ["set"], column, "rate").assign(measure=label)
        reading = (readings or {}).get(column)
        if reading is not None:
            fixed = reading.cell_rates(items, ["set"], column, "qa_id")
            s = s.merge(fixed, on="set", how="left").assign(judge=reading.judge.label, read_as=(
                "corrected by the shipped card (Rogan–Gladen)" if reading.informative else
                reading.uninformative_note))
        frames.append(s)
    if not frames:
        return pd.DataFrame()
    cols = ["set", "measure", "rate_n", "rate_acc", "rate_lo", "rate_hi", "rate_missing"] + (
        ["corrected", "corrected_lo", "corrected_hi", "read_as", "judge"] if readings else [])
    out = pd.concat(frames, ignore_index=True).reindex(columns=cols)
    return out.rename(columns={"rate_n": "n", "rate_acc": "raw", "rate_lo": "raw_lo", "rate_hi": "raw_hi",
                               "rate_missing": "unscored"})
