"""Notebook 00: a QA set from the user's documents, one pair per sampled passage, for review by hand."""

from __future__ import annotations

import pandas as pd

from ..qa.checks import apply_checks
from ..qa.generate import drawn_from, generated_pairs, sample_passages
from ..qa.review import REVIEW_COLUMNS
from ..runs.folders import write_atomic
from ..runs.runner import Result, Run, skipped_note
from ..text.corpus import load_corpus, passages

EXPERIMENT = "make_qa_set"  # results/make_qa_set/<run>/ (the review file a QA set comes from)


def make_qa_set(model: str, corpus: str, passage_chars: int, n_passages: int, min_passage_chars: int, seed: int,
                max_workers: int, run_name: str, low_overlap: bool = False) -> Result:
    """Notebook 00: pairs for `n_passages` sampled passages, written to qa_review.csv for a person to review."""
    with Run(EXPERIMENT, run_name, parameters=locals()) as run:
        loaded = load_corpus(corpus)
        pool = passages(loaded, passage_chars)
        chosen = sample_passages(pool, n_passages, min_passage_chars, seed)
        items = generated_pairs(run, model, chosen, max_workers, "qa_pairs.jsonl", low_overlap)
        ok = items[items["error"].isna()] if len(items) else items
        generated = ok.reindex(columns=REVIEW_COLUMNS + ["passage", "question_overlap"]).assign(
            passage_chars=passage_chars, validated="", review_note="")
        review, rejected, removed = apply_checks(generated)
        write_atomic(run.dir / "qa_review.csv", lambda tmp: review.to_csv(tmp, index=False))
        write_atomic(run.dir / "qa_rejected.csv", lambda tmp: rejected.to_csv(tmp, index=False))
        checks = pd.DataFrame([{"of_passages": len(chosen), "generated": len(generated),
                                **{f"removed_by_{name}": n for name, n in removed.items()},
                                "for_review": len(review),
                                "mean_question_overlap": generated["question_overlap"].astype(float).mean()}])
        notes = [loaded.report(), f"{len(pool)} passages; {drawn_from(chosen)} sampled for QA generation",
                 run.resume_note("qa_pairs.jsonl"),
                 f"automatic checks removed {len(rejected)} of {len(generated)} pairs ("
                 + ", ".join(f"{name}: {n}" for name, n in removed.items()) + f"; each with its reason in "
                 f"{run.dir / 'qa_rejected.csv'})",
                 f"{len(review)} pairs -> {run.dir / 'qa_review.csv'}: fill its `validated` column (yes/no) after "
                 "reading each passage, then pass it as qa_path"] + skipped_note(loaded.skipped)
        return run.result(checks, items=items, notes=notes,
                          data={"review": review[REVIEW_COLUMNS[:8] + ["question_overlap"]]})
