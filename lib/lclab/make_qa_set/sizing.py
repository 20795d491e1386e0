"""How many passages 00 samples: as many as the study's pairs need at the keep rate this corpus's reviews show.

A study asks for `n_pairs` kept pairs. A sampled passage yields a kept pair with the rate r = (share of passages
whose pair passes the removing checks) x (share of reviewed pairs the reviewer keeps), read from this corpus's
earlier review files (every make_qa_set run folder whose manifest names the same corpus and passage split);
before any review the rates are the priors below. With one pair per passage, n new passages give Binomial(n, r)
kept pairs, so 00 samples the fewest new passages (never one it sampled before) whose kept pairs reach what the
review file is not already expected to give with the chance `reach` (0.5: about the expected count, which falls
short half the time); its plan prices exactly those (both call `study_passages`). Passages that cannot carry a
factoid question are never sampled.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from scipy.stats import binom

from .. import paths
from ..qa.factoid_passages import not_factoid_reason
from ..qa.generate import sample_passages
from ..qa.review import review_marks
from ..runs.folders import run_dir
from ..text.corpus import Document, passage_sha1

# The priors used until this corpus has a review: the share of passages whose pair passes the removing checks, and
# the share of those the reviewer keeps, pooled over the four document sets reviewed blind in #89 (149 of 228
# passages passed, 65 of the 149 kept; benchmarks/measured/qa_review.csv). The sets ranged from 0.20 to 0.38 kept
# pairs per passage, so a new corpus's first run may still fall short: its review then sizes the next.
PASS_PRIOR, KEEP_PRIOR = 149 / 228, 65 / 149
REVIEW, REJECTED = "qa_review.csv", "qa_rejected.csv"


@dataclass(frozen=True)
class Rates:
    passed: float  # passes the removing checks, per sampled passage
    kept: float  # kept by the reviewer, per reviewed pair that passed
    reviewed: int  # reviewed pairs behind `kept` (0: the prior)
    source: str

    @property
    def per_passage(self) -> float:
        return self.passed * self.kept


def _frame(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False) if path.exists() else pd.DataFrame()


def _same_corpus(folder: Path, corpus: str, passage_chars: int) -> bool:
    try:
        given = json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("parameters", {})
    except (OSError, ValueError):
        return False
    return given.get("corpus") == corpus and int(given.get("passage_chars", 0)) == passage_chars


def corpus_rates(corpus: str, passage_chars: int, experiment: str) -> Rates:
    """The rates measured in this corpus's earlier review files (every run of it), else the priors."""
    review = rejected = reviewed = kept = 0
    for folder in sorted((paths.RESULTS / experiment).glob("*/")):
        if not (folder / REVIEW).exists() or not _same_corpus(folder, corpus, passage_chars):
            continue
        rows = _frame(folder / REVIEW)
        review, rejected = review + len(rows), rejected + len(_frame(folder / REJECTED))
        marks = review_marks(rows, folder / REVIEW) if len(rows) else pd.Series(dtype=str)
        reviewed, kept = reviewed + int((marks != "").sum()), kept + int((marks == "yes").sum())
    passed = review / (review + rejected) if review + rejected else PASS_PRIOR
    source = f"measured: {kept} of {reviewed} reviewed pairs kept" if reviewed else "stated priors (no review yet)"
    return Rates(passed, kept / reviewed if reviewed else KEEP_PRIOR, reviewed, source)


def sampled_before(folder: Path) -> set[str]:
    """The passages (by hash) a run folder's review files already hold."""
    return {h for name in (REVIEW, REJECTED) for h in _frame(folder / name).get("passage_sha1", [])}


def expected_kept(folder: Path, rates: Rates) -> float:
    """Pairs the review file is expected to give: those kept, and the unreviewed ones at the keep rate."""
    rows = _frame(folder / REVIEW)
    if not len(rows):
        return 0.0
    marks = review_marks(rows, folder / REVIEW)
    return float((marks == "yes").sum() + (marks == "").sum() * rates.kept)


def passages_for(needed: float, rate: float, reach: float) -> int:
    """The fewest passages whose kept pairs, Binomial(n, rate) with one pair per passage, reach `needed` with
    probability at least `reach` (a rate below 0.05 is read as 0.05, so a corpus that kept nothing stays finite)."""
    k = math.ceil(round(needed, 9))
    if k <= 0:
        return 0
    rate, n = max(rate, 0.05), k
    while binom.sf(k - 1, n, rate) < reach:
        n += 1
    return n


def in_order(pool: list[Document], chosen: list[Document]) -> list[Document]:
    """The chosen passages in the pool's (their documents') order, as lclab.text.headings.places reads them."""
    ids = {d.id for d in chosen}
    return [d for d in pool if d.id in ids]


def study_passages(p, pool: list[Document], experiment: str) -> tuple[list[Document], dict, str]:
    """(the new passages this run samples, how many of the pool could not carry a factoid by reason, what the
    sizing says). With n_pairs = 0 the run samples n_passages, as before the study sized it."""
    reasons = pd.Series([not_factoid_reason(d.text) for d in pool], dtype=object)
    passed_over = {str(k): int(v) for k, v in reasons.dropna().value_counts().items()}
    usable = [d for d, r in zip(pool, reasons) if r is None]
    if not p.n_pairs:  # the same passages every time: a rerun resumes them
        return sample_passages(usable, p.n_passages, p.min_passage_chars, p.seed), passed_over, ""
    folder = run_dir(experiment, p.run_name)
    before = sampled_before(folder)
    usable = [d for d in usable if passage_sha1(d.text) not in before]
    rates = corpus_rates(p.corpus, p.passage_chars, experiment)
    have = expected_kept(folder, rates)
    need = passages_for(p.n_pairs - have, rates.per_passage, p.reach)
    chosen = sample_passages(usable, need, p.min_passage_chars, p.seed + len(before)) if need else []
    said = (f"{p.n_pairs} pairs wanted; the review file is expected to give {have:.1f}; at {rates.per_passage:.2f} "
            f"kept pairs per passage ({rates.passed:.2f} pass the checks x {rates.kept:.2f} kept; {rates.source}) "
            f"{need} new passages reach the rest with a chance of {p.reach:.0%}, {len(chosen)} sampled")
    return chosen, passed_over, said
