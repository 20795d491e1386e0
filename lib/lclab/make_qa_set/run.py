"""Notebook 00: a QA set from the user's documents, one pair per sampled passage, for review by hand."""

from __future__ import annotations

import pandas as pd

from ..qa.generate import generated_pairs, sample_passages
from ..qa.review import REVIEW_COLUMNS
from ..runs.runner import Result, Run, skipped_note
from ..text.corpus import load_corpus, passages

EXPERIMENT = "qa"  # results/qa/<run>/ (the review file a QA set comes from)


def make_qa_set(model: str, corpus: str, passage_chars: int, n_passages: int, min_passage_chars: int, seed: int,
                max_workers: int, run_name: str, low_overlap: bool = False) -> Result:
    """Notebook 00: pairs for `n_passages` sampled passages, written to qa_review.csv for a person to review."""
    with Run(EXPERIMENT, run_name, parameters=locals()) as run:
        loaded = load_corpus(corpus)
        pool = passages(loaded, passage_chars)
        chosen = sample_passages(pool, n_passages, min_passage_chars, seed)
        items = generated_pairs(run, model, chosen, max_workers, "qa_pairs.jsonl", low_overlap)
        ok = items[items["error"].isna()] if len(items) else items
        review = ok.reindex(columns=REVIEW_COLUMNS + ["passage", "question_overlap"]).assign(
            passage_chars=passage_chars, validated="", review_note="")
        review.to_csv(run.dir / "qa_review.csv", index=False)
        checks = pd.DataFrame([{"pairs": len(review), "of_passages": len(chosen),
                                "answer_in_passage": int(review["answer_in_source"].astype(bool).sum()),
                                "model_says_supported": int(review["llm_supported"].astype(bool).sum()),
                                "mean_question_overlap": review["question_overlap"].astype(float).mean()}])
        notes = [loaded.report(), f"{len(pool)} passages; {len(chosen)} sampled for QA generation",
                 run.resume_note("qa_pairs.jsonl"),
                 f"{len(review)} pairs -> {run.dir / 'qa_review.csv'}: fill its `validated` column (yes/no) after "
                 "reading each passage, then pass it as qa_path"] + skipped_note(loaded.skipped)
        return run.result(checks, items=items, notes=notes,
                          data={"review": review[REVIEW_COLUMNS[:8] + ["question_overlap"]]})
