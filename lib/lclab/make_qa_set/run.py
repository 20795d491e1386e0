"""Notebook 00: a QA set from the user's documents, checked, for a reviewer (the QA desk or the CSV)."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from ..qa.checks import CHECKS, apply_checks
from ..qa.generate import CANDIDATES, MAX_ASKS, drawn_from, generated_pairs
from ..qa.review import REVIEW_FILE_COLUMNS
from ..qa.review_desk import answer_at
from ..runs.folders import write_atomic
from ..runs.runner import Result, Run, skipped_note
from ..stats import wilson_interval
from ..text.corpus import load_corpus, passages
from ..text.headings import places
from .parameters import Parameters
from .sizing import REJECTED, REVIEW, _frame, in_order, study_passages

EXPERIMENT = "make_qa_set"  # results/make_qa_set/<run>/ (the review file a QA set comes from)
CHECK_COLUMNS = [f"checks_{c}" for c in CHECKS]


def _merged(old: pd.DataFrame, new: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The review file's rows: every earlier row as it stands (its review included), then the new pairs."""
    new = new[~new["qa_id"].isin(old["qa_id"])] if len(old) else new
    out = pd.concat([old, new.astype(object)], ignore_index=True) if len(old) else new
    return out.reindex(columns=list(dict.fromkeys([*columns, *out.columns])))


def make_qa_set(p: Parameters) -> Result:
    """Notebook 00: the kept pair of each sampled passage, written to qa_review.csv (and what the checks removed
    to qa_rejected.csv), added to what an earlier run of the same run_name left there."""
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p)) as run:
        loaded = load_corpus(p.corpus)
        pool = passages(loaded, p.passage_chars)
        chosen, passed_over, sizing = study_passages(p, pool, EXPERIMENT)
        where = places(loaded, in_order(pool, chosen))
        items = generated_pairs(run, p.generator_model, chosen, p.max_workers, "qa_pairs.jsonl", p.low_overlap,
                                where)
        ok = items[items["error"].isna()] if len(items) else items
        old_review, old_rejected = _frame(run.dir / REVIEW), _frame(run.dir / REJECTED)
        batch = 1 + max([int(b) for b in (*old_review.get("batch", []), *old_rejected.get("batch", [])) if b] or [0])
        generated = ok.reindex(columns=[*REVIEW_FILE_COLUMNS, "question_overlap", "round_trip_answer",
                                        "closed_book_answer", "asks", "candidates"]).assign(
            passage_chars=p.passage_chars, validated="", review_note="", review_reason="", batch=batch)
        generated["answer_start"] = [answer_at(ps, a) for ps, a in zip(generated["passage"], generated["answer"])]
        fresh = generated[~generated["qa_id"].isin(old_review.get("qa_id", []))
                          & ~generated["qa_id"].isin(old_rejected.get("qa_id", []))]
        review, rejected, removed = apply_checks(fresh, earlier=old_review)
        columns = [*REVIEW_FILE_COLUMNS, *CHECK_COLUMNS]
        review_file = _merged(old_review, review, columns)
        rejected_file = _merged(old_rejected, rejected, [*columns, "failed_check"])
        write_atomic(run.dir / REVIEW, lambda tmp: review_file.to_csv(tmp, index=False))
        write_atomic(run.dir / REJECTED, lambda tmp: rejected_file.to_csv(tmp, index=False))
        again = ok["asks"].fillna(1).astype(int) > 1 if "asks" in ok else pd.Series(False, index=ok.index)
        flagged = review["flags"].fillna("").astype(bool) if len(review) else pd.Series(dtype=bool)
        # The table counts this run's passages' pairs as the files hold them, made now or by an earlier invocation
        # over the same passages: a warm rerun writes the table the run that made them wrote.
        mine = [f[f["qa_id"].isin(generated["qa_id"])] if len(f) else f for f in (review_file, rejected_file)]
        failed = mine[1]["failed_check"] if len(mine[1]) else pd.Series(dtype=object)
        checks = pd.DataFrame([{"of_passages": len(chosen), "generated": len(generated),
                                "asked_again": int(again.sum()),
                                **{f"removed_by_{name}": int((failed == name).sum()) for name in removed},
                                "for_review": len(mine[0]),
                                "flagged": int(mine[0]["flags"].fillna("").astype(bool).sum()) if len(mine[0]) else 0,
                                "review_file_pairs": len(review_file),
                                "mean_question_overlap": generated["question_overlap"].astype(float).mean()}])
        notes = [loaded.report(), f"{len(pool)} passages; {sum(passed_over.values())} cannot carry a factoid question "
                 f"and are never sampled ({', '.join(f'{k}: {v}' for k, v in passed_over.items()) or 'none'})",
                 *([sizing] if sizing else []), f"{drawn_from(chosen)} sampled for QA generation ({CANDIDATES} "
                 "candidate pairs asked per passage, the best that passes the checks kept)",
                 run.resume_note("qa_pairs.jsonl"),
                 f"the checks removed {len(rejected)} of {len(fresh)} new pairs ("
                 + ", ".join(f"{name}: {n}" for name, n in removed.items() if n) + f"; each with its reason in "
                 f"{run.dir / REJECTED}); {int(flagged.sum())} of the {len(review)} left are flagged for the reviewer",
                 f"{int(again.sum())} passages were asked again with the check named (up to {MAX_ASKS} asks)",
                 f"{len(review)} new pairs -> {run.dir / REVIEW} ({len(review_file)} in all): review them in the QA "
                 "desk (python -m lclab.explore, then /-/qa) or fill `validated` (yes/no) by hand, then pass the "
                 "file as qa_path", enough_pairs(len(review_file), max(len(review_file) + len(rejected_file), 1))] \
            + skipped_note(loaded.skipped)
        return run.result(checks, items=items, notes=notes,
                          data={"review": review.reindex(columns=REVIEW_FILE_COLUMNS[:8] + ["question_overlap"])})


def enough_pairs(for_review: int, n_passages: int) -> str:
    """What the pairs can tell, said before they are used: 01 and 02 resample QA pairs, so a judged accuracy's 95 %
    interval (Wilson, at the widest, an accuracy of 0.5) narrows with the pairs kept; and how to get more."""
    def half(n: int) -> float:
        lo, hi = wilson_interval(n // 2, n)
        return (hi - lo) / 2

    wanted = next(n for n in range(1, 2000) if half(n) <= 0.10)
    if not for_review:
        return f"no pair passed the checks: 01/02 have nothing to read; ±0.10 needs about {wanted} pairs (n_pairs)"
    return (f"with {for_review} pairs (if all are kept) an accuracy in 01/02 reads to about ±{half(for_review):.2f} "
            f"at its widest (95 % Wilson); ±0.10 needs about {wanted} kept pairs: set n_pairs = {wanted} and run "
            f"again (the new pairs join this review file; the reviewed ones are not asked or shown again)")
