"""Generate one factoid QA pair per passage (seed §1) and check it automatically.

Notebook 00 (`lclab.make_qa_set`) samples passages from different files, generates
a pair for each (one row per passage in `qa_pairs.jsonl`, resumable), and writes
the review CSV a reader fills in (see `lclab.qa.review`).
"""

from __future__ import annotations

import random

import pandas as pd

from ..models import complete
from ..prompts import render
from ..runs.folders import fingerprint
from ..runs.runner import Run, Step
from ..runs.samples import Sample
from ..scoring.baselines import content_overlap
from ..text.corpus import Document, passage_sha1
from ..text.normalize import contains_answer


GENERATION_TOKENS = 128  # a question and its answer as JSON
VALIDATION_TOKENS = 16  # {"supported": true}


def qa_shape(reply) -> str | None:
    for key in ("question", "answer"):
        if not isinstance(reply.get(key), str) or not reply[key].strip():
            return f"the JSON object needs a non-empty string `{key}`"
    return None


def _supported_shape(reply) -> str | None:
    return None if isinstance(reply.get("supported"), bool) else "the JSON object needs a boolean `supported` key"


def generation_prompt(passage: Document, low_overlap: bool = False) -> str:
    """The exact prompt that asks for one QA pair about a passage."""
    return render("qa_generation_low_overlap" if low_overlap else "qa_generation", context=passage.text)


def validation_prompt(passage: Document, question: str, answer: str) -> str:
    """The exact prompt that asks whether the passage supports a generated pair."""
    return render("qa_supported", context=passage.text, question=question, answer=answer)


def generate_pair(model: str, passage: Document, low_overlap: bool = False) -> dict:
    """One QA pair for a passage plus the two automatic checks, and how many of the question's content words the
    passage holds (`question_overlap`; a low-overlap question, NoLiMa's kind, keeps it low)."""
    qa = complete(model, generation_prompt(passage, low_overlap), stage="qa_generation",
                  response_format="json", max_tokens=GENERATION_TOKENS, validate=qa_shape).json
    question, answer = qa["question"].strip(), qa["answer"].strip()
    check = complete(model, validation_prompt(passage, question, answer),
                     stage="qa_validation", response_format="json", max_tokens=VALIDATION_TOKENS,
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


def generation_samples(chosen: list[Document], low_overlap: bool = False) -> list[Sample]:
    """One Sample per passage: the exact generation prompt (what the run sends and the plan counts)."""
    return [Sample(id=p.id, input=generation_prompt(p, low_overlap), source=p,
                   metadata={"doc_id": p.id, "cluster": p.id}) for p in chosen]


def generated_pairs(run: Run, model: str, chosen: list[Document], workers: int, log_name: str,
                    low_overlap: bool = False) -> pd.DataFrame:
    """Generate (or resume) one pair per passage; every row of `log_name`, failed ones with their error."""
    return run.trials(
        generation_samples(chosen, low_overlap), log=run.log(("doc_id", "fingerprint"), log_name),
        key=lambda s: (s.id, fingerprint(model, s.source.text, *(["low_overlap"] if low_overlap else []))),
        describe=lambda s: {"qa_id": f"q-{passage_sha1(s.source.text)}", "passage_sha1": passage_sha1(s.source.text),
                            "passage": s.source.text},
        steps=[Step("qa_generation", lambda s, row: generate_pair(model, s.source, low_overlap), workers)])
