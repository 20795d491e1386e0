"""Generate one factoid QA pair per passage (seed §1) and check it automatically.

Notebook 00 (`lclab.make_qa_set`) samples passages from different files, generates
a pair for each (one row per passage in `qa_pairs.jsonl`, resumable), and writes
the review CSV a reader fills in (see `lclab.qa.review`).
"""

from __future__ import annotations

import json
import random

import pandas as pd

from ..models import ParseError, Request, complete
from ..prompts import render
from ..runs.folders import fingerprint
from ..runs.runner import Run, Step
from ..runs.samples import Sample
from ..scoring.baselines import content_overlap
from ..text.corpus import Document, passage_sha1
from ..text.normalize import contains_answer
from .checks import MAX_ANSWER_WORDS, first_failed


GENERATION_TOKENS = 128  # a question and its answer as JSON
RETRY_TOKENS = 384  # once more, when a pair did not fit (a long answer cut mid-JSON), before the item fails
VALIDATION_TOKENS = 16  # {"supported": true}
# A pair that fails an automatic check (lclab.qa.checks) is asked again, the check named, up to MAX_ASKS asks in
# all: a small model restates the passage in a sentence for an answer (on three license texts the 0.5B's first
# pairs lost 8 of 12 to the answer's length alone), and told so, it often gives the phrase.
MAX_ASKS = 3
AGAIN_STAGE = "qa_generation again"
PROBLEMS = {"question_form": "the question must be a real question ending in '?', in your own words, not a sentence "
                             "copied from the context",
            "short_answer": f"the answer must be a short phrase of at most {MAX_ANSWER_WORDS} words copied from the "
                            "context, not a sentence",
            "answer_grounded": "the answer must use the context's own words"}


def qa_shape(reply) -> str | None:
    for key in ("question", "answer"):
        if not isinstance(reply.get(key), str) or not reply[key].strip():
            return f"the JSON object needs a non-empty string `{key}`"
    return None


def _supported_shape(reply) -> str | None:
    return None if isinstance(reply.get("supported"), bool) else "the JSON object needs a boolean `supported` key"



# The requests of the two stages, as the run sends them and the plan looks them up (qa.planned).
GENERATION = Request(max_tokens=GENERATION_TOKENS, response_format="json", validate=qa_shape)
VALIDATION = Request(max_tokens=VALIDATION_TOKENS, response_format="json", validate=_supported_shape)

def generation_prompt(passage: Document, low_overlap: bool = False) -> str:
    """The exact prompt that asks for one QA pair about a passage."""
    return render("qa_generation_low_overlap" if low_overlap else "qa_generation", context=passage.text)


def validation_prompt(passage: Document, question: str, answer: str) -> str:
    """The exact prompt that asks whether the passage supports a generated pair."""
    return render("qa_supported", context=passage.text, question=question, answer=answer)


def again_messages(prompt: str, question: str, answer: str, failed: str) -> list[dict]:
    """The conversation that asks for another pair: the generation prompt, the pair that failed, and the check it
    failed in words (the exact prompt the run sends, and the plan counts)."""
    return [{"role": "user", "content": prompt},
            {"role": "assistant", "content": json.dumps({"question": question, "answer": answer}, ensure_ascii=False)},
            {"role": "user", "content": render("qa_generation_again", problem=PROBLEMS[failed])}]


def pair_failure(passage: Document, question: str, answer: str) -> str | None:
    """The first automatic check a pair fails (lclab.qa.checks), or None: what the run asks again about and the
    plan checks a cached pair for."""
    return first_failed({"question": question, "answer": answer, "passage": passage.text,
                         "answer_in_source": contains_answer(passage.text, answer)})


def _pair(model: str, prompt, stage: str) -> tuple[str, str]:
    try:
        qa = complete(model, prompt, stage=stage, request=GENERATION).json
    except ParseError:  # most often a pair cut at the budget: asked once more with room for a long answer
        qa = complete(model, prompt, stage=stage, request=GENERATION.but(max_tokens=RETRY_TOKENS)).json
    return qa["question"].strip(), qa["answer"].strip()


def generate_pair(model: str, passage: Document, low_overlap: bool = False) -> dict:
    """One QA pair for a passage, asked again with the failed check named while it fails one (up to MAX_ASKS asks),
    then the model's own check of it; and how many of the question's content words the passage holds
    (`question_overlap`; a low-overlap question, NoLiMa's kind, keeps it low). `asks`: the generation calls it
    took; `first_failed_check`: what the first pair failed (None: it passed)."""
    prompt = generation_prompt(passage, low_overlap)
    question, answer = _pair(model, prompt, "qa_generation")
    failed = first = pair_failure(passage, question, answer)
    asks = 1
    while failed is not None and asks < MAX_ASKS:
        question, answer = _pair(model, again_messages(prompt, question, answer, failed), AGAIN_STAGE)
        failed = pair_failure(passage, question, answer)
        asks += 1
    check = complete(model, validation_prompt(passage, question, answer), stage="qa_validation",
                     request=VALIDATION).json
    return {"question": question, "answer": answer,
            "answer_in_source": contains_answer(passage.text, answer),
            "llm_supported": check["supported"], "question_overlap": content_overlap(question, passage.text),
            "asks": asks, "first_failed_check": first}


def sample_passages(pool: list[Document], n: int, min_chars: int, seed: int) -> list[Document]:
    """Up to n passages of at least min_chars, chosen with a seeded RNG: one per file from n different files
    where the corpus has that many; else spread over every file (as even a share each as their passages allow)
    and over each file's length (evenly spaced, never two the same: a corpus of a few long manuals gives n
    passages, not one per manual). Passages never overlap: they are the corpus's own consecutive cuts."""
    rng = random.Random(seed)
    by_source: dict[str, list[Document]] = {}
    for p in pool:
        if len(p.text) >= min_chars:
            by_source.setdefault(p.source, []).append(p)
    sources = sorted(by_source)
    rng.shuffle(sources)
    if len(sources) >= n:
        return [rng.choice(by_source[s]) for s in sources[:n]]
    quota = {s: 0 for s in sources}
    while sum(quota.values()) < n and any(quota[s] < len(by_source[s]) for s in sources):
        for s in sources:  # one more from each file that has one left, in the shuffled order
            if sum(quota.values()) < n and quota[s] < len(by_source[s]):
                quota[s] += 1
    chosen = []
    for s in sources:
        ranked, k = by_source[s], quota[s]
        step = len(ranked) / k if k else 0
        offset = rng.random() * step  # where in the first stretch the evenly spaced picks start
        chosen += [ranked[min(len(ranked) - 1, int(offset + i * step))] for i in range(k)]
    return chosen


def drawn_from(chosen: list[Document]) -> str:
    """Where the sampled passages came from, for the plan and the run: "6 passages from 3 files (2, 2, 2)"."""
    counts = pd.Series([p.source for p in chosen]).value_counts() if chosen else pd.Series(dtype=int)
    spread = ", ".join(str(n) for n in counts) if len(counts) <= 12 else f"{counts.max()} at most"
    return f"{len(chosen)} passages from {len(counts)} files" + (f" ({spread} per file)" if len(counts) else "")


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
