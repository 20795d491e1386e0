"""The reliability card: how far to trust a judged metric. One function, one table shape, every judge.

    row = card("answer correct", judge_model, Replies(verdicts, probabilities, sources), labels,
               "reference words in the answer", baseline_scores)

Against the maintainer's labels (an AI coding agent, reading the source, blind to the judge; see
data/judge_labels/README.md), and beside a second labelling pass where one exists (`labellers`): how many
items are labelled, the base rate, raw
agreement and Cohen's κ with a bootstrap 95 % CI, the ROC AUC of the judge's
probability with its CI and its expected calibration error; and, labels or not,
parse failures, verdicts that fell back to the sampled token, agreement with the
judge-free baseline, and self-consistency when samples were asked for. The
baseline gets the same agreement, κ and AUC against the labels, so a judge that
does not beat it shows it. Where no labels exist for the run's items, the card
says so instead of printing numbers. The bootstraps resample the items' clusters
(QA pairs) where the run gives them, else the judged texts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..stats import interval_verdict, kappa_with_ci
from ..stats.corrected import corrected_rate
from .baselines import THRESHOLD
from .labellers import labeller_agreement
from .labels import LABELS, label_key, labels_for, load_labels, row_key  # noqa: F401 (where callers find them)
from .score_eval import expected_calibration_error, paired_auc_difference, separation_summary

MIN_LABELS = 10  # below this, a card's numbers are printed but called too few to tell
# The judged rate and what the labels make of it (lclab.stats.corrected): raw, labels alone, Rogan–Gladen, PPI++.
CORRECTED = tuple(f"{e}{s}" for e in ("raw", "labels_only", "rogan_gladen", "ppi") for s in ("", "_lo", "_hi")) + (
    "sensitivity", "specificity")
COLUMNS = ["metric", "judge", "n_judged", "parse_failures", "sampled_fallback", "n_labelled", "base_rate",
           "agreement", "kappa", "kappa_lo", "kappa_hi", "auc", "auc_lo", "auc_hi", "ece", "baseline",
           "baseline_agreement", "baseline_kappa", "baseline_auc", "auc_vs_baseline", "auc_vs_baseline_lo",
           "auc_vs_baseline_hi", "versus_baseline", "judge_vs_baseline", "self_consistency", "labellers_n",
           "labellers_kappa", "labellers_kappa_lo", "labellers_kappa_hi", *CORRECTED, "headline_estimate",
           "reading"]


def _defined(*series) -> np.ndarray:
    return np.logical_and.reduce([pd.notna(s).to_numpy() for s in series])


@dataclass(frozen=True)
class Replies:
    """A judge's replies on its judged items, aligned: each verdict (None where its reply held none), the
    probability of "yes" behind it, and where the verdict came from ("logprobs", "sampled", ...)."""

    verdicts: pd.Series
    probabilities: pd.Series
    sources: pd.Series


def card(metric: str, judge: str, replies: Replies, labels: pd.Series, baseline: str, baseline_scores: pd.Series,
         consistency: pd.Series | None = None, labellers: dict | None = None, clusters: pd.Series | None = None
         ) -> dict:
    """One card row (see the module docstring); every series is aligned with the judged items. `labellers`:
    two labellers' κ on these texts (`labellers.labeller_agreement`), printed beside the judge's as its ceiling;
    `clusters`: each item's independent unit (a QA pair), which every interval resamples (κ, AUC, the paired
    difference with the baseline, the corrected rates)."""
    verdicts, probabilities = replies.verdicts.reset_index(drop=True), replies.probabilities.reset_index(drop=True)
    sources = replies.sources
    labels, baseline_scores = labels.reset_index(drop=True), baseline_scores.reset_index(drop=True)
    judged = pd.notna(verdicts).to_numpy()
    baseline_votes = baseline_scores.map(lambda s: None if pd.isna(s) else float(s >= THRESHOLD))
    both = _defined(verdicts, baseline_votes)
    row = {"metric": metric, "judge": judge, "n_judged": int(judged.sum()), "parse_failures": int((~judged).sum()),
           "sampled_fallback": int((sources == "sampled").sum()), "baseline": baseline,
           "judge_vs_baseline": float((verdicts[both].astype(float) == baseline_votes[both]).mean())
           if both.any() else math.nan,
           "self_consistency": float(consistency.dropna().mean()) if consistency is not None and
           consistency.notna().any() else math.nan, **(labellers or {})}
    labelled = _defined(verdicts, labels)
    row["n_labelled"] = int(labelled.sum())
    row.update(estimates(verdicts, labels, None if clusters is None else clusters.reset_index(drop=True)))
    if not labelled.any():
        return {**{c: math.nan for c in COLUMNS}, **row,
                "reading": "no labels for this run's items: agreement, κ and AUC cannot be measured, and the judge's "
                           f"rate ({row['raw']:.2f}) is what the judge says, not an estimate of the truth"
                           if row["n_judged"] else "nothing judged: no verdict to read"}
    y = labels[labelled].astype(int).to_numpy()
    row["base_rate"] = float(y.mean())
    # Every interval resamples the items' clusters where they are given (several answers to one QA pair are not
    # independent), else the items.
    units = None if clusters is None else clusters.reset_index(drop=True)
    row.update(kappa_with_ci(verdicts[labelled].astype(int), y, None if units is None else units[labelled]))
    p = probabilities[labelled].astype(float)
    sep = separation_summary(y, p, clusters=None if units is None else units[labelled])
    row.update(auc=sep["auc"], auc_lo=sep["auc_lo"], auc_hi=sep["auc_hi"], ece=expected_calibration_error(y, p))
    with_base = _defined(baseline_votes, labels) & labelled
    base = kappa_with_ci(baseline_votes[with_base].astype(int), labels[with_base].astype(int))
    row.update(baseline_agreement=base["agreement"], baseline_kappa=base["kappa"],
               baseline_auc=separation_summary(labels[with_base].astype(int), baseline_scores[with_base])["auc"])
    row.update(versus_baseline(labels[with_base].astype(int), probabilities[with_base], baseline_scores[with_base],
                               None if units is None else units[with_base]))
    row["reading"] = reading(row)
    return {c: row.get(c, math.nan) for c in COLUMNS}


def estimates(verdicts: pd.Series, labels: pd.Series, clusters: pd.Series | None = None) -> dict:
    """The judge's rate over the distinct judged texts, and corrected by the labels among them; which one a
    headline should use: PPI++ once there are MIN_LABELS labels (valid whatever the judge's errors, and with
    its tuning no wider than the labels alone), else the raw rate, named as uncorrected."""
    if not pd.notna(verdicts).any():
        return {**{c: math.nan for c in CORRECTED}, "headline_estimate": "none (nothing judged)"}
    got = corrected_rate(verdicts.map(lambda v: None if pd.isna(v) else float(v)), labels, clusters)
    enough = got["n_labelled"] >= MIN_LABELS and not math.isnan(got["ppi"])
    return {**{c: got[c] for c in CORRECTED},
            "headline_estimate": "ppi" if enough else f"raw (uncorrected: {got['n_labelled']} labels, "
                                                      f"{MIN_LABELS} needed)"}


def versus_baseline(labels: pd.Series, judge_scores: pd.Series, baseline_scores: pd.Series,
                    clusters: pd.Series | None = None) -> dict:
    """The judge's AUC minus its baseline's on the same labelled texts, with a bootstrap 95 % CI (over `clusters`
    where given), and what the interval says: "beats" (above 0), "loses to" (below 0) or "ties with" (it holds 0);
    never the point."""
    diff = paired_auc_difference(labels, judge_scores.astype(float), baseline_scores.astype(float),
                                 clusters=clusters)
    lo, hi = diff["difference_lo"], diff["difference_hi"]
    return {"auc_vs_baseline": diff["difference"], "auc_vs_baseline_lo": lo, "auc_vs_baseline_hi": hi,
            "versus_baseline": interval_verdict(lo, hi)}


def reading(row: dict) -> str:
    """One sentence on what the card says."""
    words = []
    if row["n_labelled"] < MIN_LABELS:
        words.append(f"only {row['n_labelled']} labelled items: too few to tell")
    if row.get("versus_baseline") in ("beats", "loses to", "ties with"):
        words.append(f"the judge {row['versus_baseline']} its judge-free baseline on AUC ({row['auc']:.2f} vs "
                     f"{row['baseline_auc']:.2f}; paired difference {row['auc_vs_baseline']:+.2f} "
                     f"[{row['auc_vs_baseline_lo']:+.2f}, {row['auc_vs_baseline_hi']:+.2f}])")
    if not math.isnan(row["kappa_hi"]) and row["kappa_hi"] < 0.4:
        words.append("κ below 0.4 even at the top of its interval: agreement with the labels is weak")
    if row.get("labellers_n", 0) and not math.isnan(row.get("labellers_kappa", math.nan)):
        words.append(f"two labellers agree at κ {row['labellers_kappa']:.2f} [{row['labellers_kappa_lo']:.2f}, "
                     f"{row['labellers_kappa_hi']:.2f}] on {row['labellers_n']} of these texts, the ceiling for "
                     f"the judge's κ {row['kappa']:.2f}")
    if row.get("headline_estimate") == "ppi":
        words.append(f"the judge's rate {row['raw']:.2f} [{row['raw_lo']:.2f}, {row['raw_hi']:.2f}] is "
                     f"{row['ppi']:.2f} [{row['ppi_lo']:.2f}, {row['ppi_hi']:.2f}] corrected by the labels (PPI++; "
                     f"Rogan–Gladen {row['rogan_gladen']:.2f}, labels alone {row['labels_only']:.2f})")
    return "; ".join(words) or "agreement with the labels as shown"


def cards(rows: list[dict]) -> pd.DataFrame:
    """The cards of one run, one row per judged metric, in the one table shape."""
    return pd.DataFrame(rows, columns=COLUMNS)


def card_notes(table: pd.DataFrame) -> list[str]:
    """The cards' readings, one line per metric, for a run's notes."""
    return [f"reliability of {r.metric} ({r.judge}): {r.reading}" for r in table.itertuples()]


def judged_card(items: pd.DataFrame, column: str, metric: str, judge: str, labels_name: str,
                key_fields: tuple[str, ...], baseline: str, baseline_score, cluster: str | None = None) -> dict:
    """The card of one judge's columns in a run's items (`column`, `column`_p, `_source`, `_consistency`), over
    the distinct judged texts.

    `key_fields`: the item columns a label is filed under; `baseline_score(row)`: the judge-free score;
    `cluster`: the item column naming its independent unit (a QA pair), which every interval resamples.
    """
    if column not in items or items.empty:
        nothing = Replies(pd.Series(dtype=object), pd.Series(dtype=float), pd.Series(dtype=object))
        return card(metric, judge, nothing, pd.Series(dtype=float), baseline, pd.Series(dtype=float))
    answered = items[items["response"].notna()] if "response" in items else items
    keys = answered.apply(lambda r: row_key(r, key_fields), axis=1)
    # One verdict per distinct judged text: the same answer judged at five depths is one judgment repeated
    # (the judge's prompt is identical), and counting it five times would narrow every interval falsely.
    first = ~keys.duplicated()
    answered, keys = answered[first], keys[first]
    scores = answered.apply(baseline_score, axis=1).astype(float)
    units = answered[cluster] if cluster and cluster in answered else None
    replies = Replies(answered[column], answered.get(f"{column}_p", pd.Series(np.nan, answered.index)),
                      answered.get(f"{column}_source", pd.Series(None, answered.index)))
    return card(metric, judge, replies, labels_for(keys, labels_name),
                baseline, scores, answered.get(f"{column}_consistency"),
                labeller_agreement(labels_name, keys, pd.Series(units.to_numpy(), index=keys) if units is not None
                                   else None), units)
