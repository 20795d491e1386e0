"""Generate factoid QA pairs for passages (seed §1) and put each through the checks (lclab.qa.checks).

Per passage, one call asks for CANDIDATES pairs at once, told the document's title and the section heading above
the passage (lclab.text.headings) so that a question can name what it asks about. Every candidate is checked by
its text; those that pass are asked back to the generator with the passage (round trip, back to back so the
model's KV cache keeps the passage between them), and the ones that come back with their question alone
(closed book), in order, until one needs the passage. The first candidate that passes every removing check and
raises no flag is kept; else the first that passes every removing check; else the pair goes to the rejected
file with the furthest check it reached. When every candidate fails a text check, the generator is asked again
in the same conversation with that check's message (up to MAX_ASKS asks).

`walk` is that procedure over an `ask(stage, prompt)` function: the run's asks the model, the plan's looks the
same prompts up in the cache (lclab.qa.planned), so the two cannot disagree on which calls a passage makes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from ..models import ParseError, Request, complete
from ..pipeline import Given, Stage
from ..prompts import render
from ..runs.folders import fingerprint
from ..runs.runner import Run
from ..runs.samples import Sample
from ..scoring.baselines import content_overlap
from ..text.corpus import Document, passage_sha1
from ..text.headings import Where
from ..text.normalize import contains_answer
from .checks import PROBLEMS, REMOVES, TEXT_CHECKS, first_text_failure, same_answer, text_checks

CANDIDATES = 3  # pairs asked per passage in one call
GENERATION_TOKENS = 224  # three short pairs as JSON
RETRY_TOKENS = 512  # once more, when the pairs did not fit (a long answer cut mid-JSON), before the item fails
PROBE_TOKENS = 24  # a short answer back
MAX_ASKS = 2
AGAIN_STAGE = "qa_generation again"
ROUND_TRIP, CLOSED_BOOK = "qa_round_trip", "qa_closed_book"
LOW_OVERLAP = (" The question must not reuse the passage's words: refer to what it talks about with other words "
               "(synonyms, descriptions, a more general term), so that finding the answer needs understanding, not "
               "matching words.")


def _schema(n: int) -> dict:
    pair = {"type": "object", "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
            "required": ["question", "answer"]}
    return {"type": "object", "properties": {"pairs": {"type": "array", "items": pair, "minItems": 1,
                                                       "maxItems": n}}, "required": ["pairs"]}


def qa_shape(reply) -> str | None:
    """A reply holding one pair (the multi-chunk questions', 04's generated answers)."""
    for key in ("question", "answer"):
        if not isinstance(reply.get(key), str) or not reply[key].strip():
            return f"the JSON object needs a non-empty string `{key}`"
    return None


def candidates_shape(reply) -> str | None:
    pairs = reply.get("pairs") if isinstance(reply, dict) else None
    if not isinstance(pairs, list) or not pairs:
        return "the JSON object needs a non-empty list `pairs`"
    for pair in pairs:
        if not isinstance(pair, dict) or not all(isinstance(pair.get(k), str) and pair[k].strip()
                                                 for k in ("question", "answer")):
            return "each entry of `pairs` needs non-empty strings `question` and `answer`"
    return None


# The requests of the stages, as the run sends them and the plan looks them up (qa.planned).
GENERATION = Request(max_tokens=GENERATION_TOKENS, response_format=_schema(CANDIDATES), validate=candidates_shape)
PROBE = Request(max_tokens=PROBE_TOKENS)


def generation_prompt(passage: Document, low_overlap: bool = False, where: Where | None = None) -> str:
    """The exact prompt that asks for CANDIDATES pairs about a passage."""
    where = where or Where(passage.source or passage.id, "")
    return render("qa_generation_candidates", n=CANDIDATES, title=where.title, heading=where.heading or "(none)",
                  context=passage.text, also=LOW_OVERLAP if low_overlap else "")


def again_messages(prompt: str, reply: str, failed: str) -> list[dict]:
    """The conversation that asks for other pairs: the generation prompt, the reply whose pairs all failed, and
    the check the first of them failed, in words (the exact prompt the run sends and the plan counts)."""
    return [{"role": "user", "content": prompt}, {"role": "assistant", "content": reply},
            {"role": "user", "content": render("qa_generation_again", problem=PROBLEMS[failed])}]


def round_trip_prompt(passage: Document, question: str) -> str:
    return render("qa_round_trip", context=passage.text, question=question)


def closed_book_prompt(question: str) -> str:
    return render("answer_closed_book", question=question)


def parse_pairs(reply: dict | None) -> list[tuple[str, str]]:
    """The candidates of a generation reply, stripped, in order (none where the reply holds no pairs)."""
    pairs = reply.get("pairs") if isinstance(reply, dict) else None
    return [(p["question"].strip(), p["answer"].strip()) for p in pairs or []
            if isinstance(p, dict) and isinstance(p.get("question"), str) and isinstance(p.get("answer"), str)]


@dataclass
class Walk:
    """What the checks made of one passage's candidates: each candidate's results, the kept one's index."""

    checked: list[dict] = field(default_factory=list)
    kept: int | None = None


def walk(pairs: list[tuple[str, str]], passage: Document, title: str,
         ask: Callable[[str, str, str], str]) -> Walk:
    """Check each candidate (text checks, then round trip, then closed book as the module docstring says).
    `ask(stage, prompt, expected)`: a probe's reply; `expected` is the reply that passes it, what a plan assumes
    for a probe not yet in the cache (it then prices the calls a passing probe leads to)."""
    out = Walk([{"question": q, "answer": a, **text_checks(q, a, passage.text, title)} for q, a in pairs])
    passing = [c for c in out.checked if all(c[k] for k in TEXT_CHECKS)]
    for c in passing:  # back to back: the passage stays in the model's KV cache
        c["round_trip_answer"] = ask(ROUND_TRIP, round_trip_prompt(passage, c["question"]), c["answer"])
        c["round_trip"] = same_answer(c["round_trip_answer"], c["answer"])
    for c in (c for c in passing if c["round_trip"]):
        c["closed_book_answer"] = ask(CLOSED_BOOK, closed_book_prompt(c["question"]), "")
        c["closed_book"] = not same_answer(c["closed_book_answer"], c["answer"])
        if c["closed_book"]:
            break
    removing_ok = [i for i, c in enumerate(out.checked)
                   if "round_trip" in c and not any(c.get(k) is False for k in REMOVES)]
    clean = [i for i in removing_ok if out.checked[i].get("closed_book") is True]
    out.kept = clean[0] if clean else removing_ok[0] if removing_ok else None
    return out


def _furthest(checked: list[dict]) -> int:
    """The candidate that passed the most checks (the one a rejected row shows)."""
    return max(range(len(checked)), key=lambda i: (sum(v is True for v in checked[i].values()), -i))


def _generate(model: str, prompt) -> tuple[str, list[tuple[str, str]]]:
    stage = AGAIN_STAGE if isinstance(prompt, list) else "qa_generation"
    try:
        reply = complete(model, prompt, stage=stage, request=GENERATION)
    except ParseError:  # most often pairs cut at the budget: asked once more with room for long answers
        reply = complete(model, prompt, stage=stage, request=GENERATION.but(max_tokens=RETRY_TOKENS))
    return reply.text, parse_pairs(reply.json)


def pair_row(passage: Document, checked: list[dict], kept: int | None, asks: int, first: str | None) -> dict:
    """The item row of a passage: the kept candidate (else the furthest) with each check's result."""
    chosen = checked[kept if kept is not None else _furthest(checked)]
    answer = chosen["answer"]
    return {"question": chosen["question"], "answer": answer, "answer_in_source": contains_answer(passage.text, answer),
            "llm_supported": chosen.get("round_trip"), "question_overlap": content_overlap(chosen["question"],
                                                                                        passage.text),
            **{f"checks_{k}": chosen.get(k) for k in ("round_trip", "closed_book")},
            "round_trip_answer": chosen.get("round_trip_answer"), "closed_book_answer": chosen.get("closed_book_answer"),
            "asks": asks, "first_failed_check": first, "candidates": json.dumps(checked, ensure_ascii=False)}


def pair_of(passage: Document, where: Where, low_overlap: bool, generate: Callable, ask: Callable) -> dict:
    """The kept pair of a passage's candidates (see the module docstring), asked again while every candidate
    fails a text check (up to MAX_ASKS asks): `generate(prompt)` -> (reply text, pairs), `ask(stage, prompt,
    expected)` -> a probe's reply (the run's call the model; the plan's look the same prompts up). `asks`: the generation
    calls it took; `first_failed_check`: what the first reply's first candidate failed (None: it passed)."""
    prompt = generation_prompt(passage, low_overlap, where)
    text, pairs = generate(prompt)
    first = first_text_failure(*pairs[0], passage.text, where.title) if pairs else "question_form"
    result, asks = walk(pairs, passage, where.title, ask), 1
    while not any("round_trip" in c for c in result.checked) and asks < MAX_ASKS and pairs:
        failed = first_text_failure(*pairs[0], passage.text, where.title) or "question_form"
        text, pairs = generate(again_messages(prompt, text, failed))
        asks += 1
        result = walk(pairs, passage, where.title, ask) if pairs else result
    return pair_row(passage, result.checked, result.kept, asks, first)


def generate_pair(model: str, passage: Document, low_overlap: bool = False, where: Where | None = None) -> dict:
    """The kept pair of a passage, the generator (`model`) writing and answering back (pair_of)."""
    def ask(stage: str, probe: str, expected: str) -> str:
        return complete(model, probe, stage=stage, request=PROBE).text.strip()

    return pair_of(passage, where or Where(passage.source or passage.id, ""), low_overlap,
                   lambda prompt: _generate(model, prompt), ask)


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


def generation_samples(chosen: list[Document], low_overlap: bool = False,
                       where: dict[str, Where] | None = None) -> list[Sample]:
    """One Sample per passage: the exact generation prompt (what the run sends and the plan counts)."""
    where = where or {}
    return [Sample(id=p.id, input=generation_prompt(p, low_overlap, where.get(p.id)), source=p,
                   metadata={"doc_id": p.id, "cluster": p.id}) for p in chosen]


@dataclass(frozen=True)
class Generating:
    """What the generation stage reads as its parameters: the generator, its concurrent calls, the wording."""

    model: str
    workers: int = 1
    low_overlap: bool = False


def generated(given: Given, s: Sample, row: dict) -> dict:
    """A passage's kept pair, its checks walked (generate_pair), told where the passage stands (`built["where"]`)."""
    g = given.p
    return generate_pair(g.model, s.source, g.low_overlap, given.built["where"].get(s.id))


# Every passage's generation, its retries, round trips and closed-book probes: one stage as the runner executes it
# (the plan prices each call kind by its fan-out: lclab.make_qa_set.experiment).
GENERATE = Stage("qa_generation", request=lambda g: GENERATION, prompt=lambda s: s.input, workers="workers",
                 write=generated)


def generated_pairs(run: Run, model: str, chosen: list[Document], workers: int, log_name: str,
                    low_overlap: bool = False, where: dict[str, Where] | None = None) -> pd.DataFrame:
    """Generate (or resume) the kept pair of each passage; every row of `log_name`, failed ones with their error."""
    where = where or {}
    return run.stages(
        generation_samples(chosen, low_overlap, where), [GENERATE],
        Given(Generating(model, workers, low_overlap), built={"where": where}),
        log=run.log(("doc_id", "fingerprint"), log_name),
        key=lambda s: (s.id, fingerprint(model, s.input, "candidates")),
        describe=lambda s: {"qa_id": f"q-{passage_sha1(s.source.text)}", "passage_sha1": passage_sha1(s.source.text),
                            "passage": s.source.text, "title": (where.get(s.id) or Where(s.source.source, "")).title,
                            "heading": (where.get(s.id) or Where("", "")).heading})
