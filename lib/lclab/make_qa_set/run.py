"""Notebook 00: a QA set from the user's documents, one pair per sampled passage, for review by hand."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from ..qa.checks import apply_checks
from ..qa.generate import MAX_ASKS, drawn_from, generated_pairs, sample_passages
from ..qa.review import REVIEW_COLUMNS
from ..runs.folders import write_atomic
from ..runs.runner import Result, Run, skipped_note
from ..text.corpus import load_corpus, passages
from ..stats import wilson_interval
from .parameters import Parameters

EXPERIMENT = "make_qa_set"  # results/make_qa_set/<run>/ (the review file a QA set comes from)


def make_qa_set(p: Parameters) -> Result:
    """Notebook 00: pairs for `n_passages` sampled passages, written to qa_review.csv for a person to review."""
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p)) as run:
        loaded = load_corpus(p.corpus)
        pool = passages(loaded, p.passage_chars)
        chosen = sample_passages(pool, p.n_passages, p.min_passage_chars, p.seed)
        items = generated_pairs(run, p.generator_model, chosen, p.max_workers, "qa_pairs.jsonl", p.low_overlap)
        ok = items[items["error"].isna()] if len(items) else items
        generated = ok.reindex(columns=REVIEW_COLUMNS + ["passage", "question_overlap"]).assign(
            passage_chars=p.passage_chars, validated="", review_note="")
        review, rejected, removed = apply_checks(generated)
        write_atomic(run.dir / "qa_review.csv", lambda tmp: review.to_csv(tmp, index=False))
        write_atomic(run.dir / "qa_rejected.csv", lambda tmp: rejected.to_csv(tmp, index=False))
        again = ok["asks"].fillna(1).astype(int) > 1 if "asks" in ok else pd.Series(False, index=ok.index)
        checks = pd.DataFrame([{"of_passages": len(chosen), "generated": len(generated),
                                "asked_again": int(again.sum()),
                                **{f"removed_by_{name}": n for name, n in removed.items()},
                                "for_review": len(review),
                                "mean_question_overlap": generated["question_overlap"].astype(float).mean()}])
        notes = [loaded.report(), f"{len(pool)} passages; {drawn_from(chosen)} sampled for QA generation",
                 run.resume_note("qa_pairs.jsonl"),
                 f"automatic checks removed {len(rejected)} of {len(generated)} pairs ("
                 + ", ".join(f"{name}: {n}" for name, n in removed.items()) + f"; each with its reason in "
                 f"{run.dir / 'qa_rejected.csv'})",
                 f"{int(again.sum())} pairs were asked again with the check they failed named (up to {MAX_ASKS} asks "
                 f"each); {int((again & ok.index.isin(review.index)).sum())} of them then passed",
                 f"{len(review)} pairs -> {run.dir / 'qa_review.csv'}: fill its `validated` column (yes/no) after "
                 "reading each passage, then pass it as qa_path", enough_pairs(len(review), p.n_passages)] \
            + skipped_note(loaded.skipped)
        return run.result(checks, items=items, notes=notes,
                          data={"review": review[REVIEW_COLUMNS[:8] + ["question_overlap"]]})


def enough_pairs(for_review: int, n_passages: int) -> str:
    """What the pairs can tell, said before they are used: 01 and 02 resample QA pairs, so a judged accuracy's 95 %
    interval (Wilson, at the widest, an accuracy of 0.5) narrows with the pairs kept; and how to get more."""
    def half(n: int) -> float:
        lo, hi = wilson_interval(n // 2, n)
        return (hi - lo) / 2

    wanted = next(n for n in range(1, 2000) if half(n) <= 0.10)
    share = for_review / n_passages if n_passages else 0
    more = (f"about n_passages = {int(wanted / share) + 1} at this run's share kept ({for_review} of {n_passages})"
            if share else "more passages (n_passages), or another generator")
    if not for_review:
        return f"no pair passed the checks: 01/02 have nothing to read; ±0.10 needs about {wanted} pairs: {more}"
    return (f"with {for_review} pairs (if all are validated) an accuracy in 01/02 reads to about "
            f"±{half(for_review):.2f} at its widest (95 % Wilson); ±0.10 needs about {wanted} pairs: {more}")
