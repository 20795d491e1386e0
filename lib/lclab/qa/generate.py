"""Generate one factoid QA pair per passage (seed §1) and check it automatically.

Notebook 00 runs `make_qa_set`: sample passages from different files, generate
a pair for each (one row per passage in `qa_pairs.jsonl`, resumable), and write
the review CSV a person fills in (see `lclab.qa.review`).
"""

from __future__ import annotations

import random

import pandas as pd

from ..baselines import content_overlap
from ..corpus import Document, load_corpus, passage_sha1, passages
from ..models import complete
from ..prompts import render
from ..runner import Result, Run, Step, skipped_note
from ..runs import fingerprint
from ..text import contains_answer
from .review import REVIEW_COLUMNS

EXPERIMENT = "qa"


def qa_shape(reply) -> str | None:
    for key in ("question", "answer"):
        if not isinstance(reply.get(key), str) or not reply[key].strip():
            return f"the JSON object needs a non-empty string `{key}`"
    return None


def _supported_shape(reply) -> str | None:
    return None if isinstance(reply.get("supported"), bool) else "the JSON object needs a boolean `supported` key"


def generate_pair(model: str, passage: Document, low_overlap: bool = False) -> dict:
    """One QA pair for a passage plus the two automatic checks, and how many of the question's content words the
    passage holds (`question_overlap`; a low-overlap question, NoLiMa's kind, keeps it low)."""
    template = "qa_generation_low_overlap" if low_overlap else "qa_generation"
    qa = complete(model, render(template, context=passage.text), stage="qa_generation",
                  response_format="json", max_tokens=128, validate=qa_shape).json
    question, answer = qa["question"].strip(), qa["answer"].strip()
    check = complete(model, render("qa_supported", context=passage.text, question=question, answer=answer),
                     stage="qa_validation", response_format="json", max_tokens=16,
                     validate=_supported_shape).json
    return {"question": question, "answer": answer,
            "answer_in_source": contains_answer(passage.text, answer),
            "llm_supported": check["supported"], "question_overlap": content_overlap(question, passage.text)}


def sample_passages(pool: list[Document], n: int, min_chars: int, seed: int) -> list[Document]:
    """Up to n passages of at least min_chars, from n different files, chosen with a seeded RNG."""
    rng = random.Random(seed)
    by_source: dict[str, list[Document]] = {}
    for p in pool:
        if len(p.text) >= min_chars:
            by_source.setdefault(p.source, []).append(p)
    sources = sorted(by_source)
    rng.shuffle(sources)
    return [rng.choice(by_source[s]) for s in sources[:n]]


def generated_pairs(run: Run, model: str, chosen: list[Document], workers: int, log_name: str,
                    low_overlap: bool = False) -> pd.DataFrame:
    """Generate (or resume) one pair per passage; every row of `log_name`, failed ones with their error."""
    return run.trials(
        chosen, log=run.log(("doc_id", "fingerprint"), log_name),
        key=lambda p: (p.id, fingerprint(model, p.text, *(["low_overlap"] if low_overlap else []))),
        describe=lambda p: {"qa_id": f"q-{passage_sha1(p.text)}", "passage_sha1": passage_sha1(p.text),
                            "passage": p.text},
        steps=[Step("qa_generation", lambda p, row: generate_pair(model, p, low_overlap), workers)])


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
