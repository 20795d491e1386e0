"""The continuous retrieval-accuracy dataset (seed 002): how much of a golden response does a set of contexts cover?

1. Golden contexts: four consecutive 2000-character chunks of one essay (G1-G4).
   Noisy contexts: three chunks drawn, seeded, from other essays (N1-N3).
2. A question whose golden response draws on all four golden chunks: generated
   by the LLM (one cached call), replaced by the reviewed version when the
   reviewed file was made for exactly these chunks.
3. The golden response's unique facts, extracted twice: an IO prompt and a
   chain-of-thought prompt.
4. Every fact against every context with the logprob-weighted scorer
   ("is this fact fully discussed in the context?"): facts x 7 calls.
5. Every combination of 2..7 contexts (120): a fact is covered when any context
   of the combination covers it (binary: weighted score >= 0.5; soft:
   1 - prod(1 - p)); the combination's score is the mean over facts.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .chunking import Chunk, Chunker
from .corpus import load_corpus
from .errors import LogprobsUnavailableError, MissingAPIKeyError
from .gateway import complete
from .logprob_scoring import score
from .parallel import map_items
from .prompts import render
from .qa import passage_sha1, qa_shape
from .paths import repo_path
from .runs import run_dir

EXPERIMENT = "pg_continuous"
STYLES = {"io": "facts_io", "cot": "facts_cot"}
QA_SCHEMA = {"type": "object", "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
             "required": ["question", "answer"]}
FACTS_SCHEMAS = {
    "io": {"type": "object", "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
           "required": ["facts"]},
    "cot": {"type": "object", "properties": {"reasoning": {"type": "string"},
                                             "facts": {"type": "array", "items": {"type": "string"}}},
            "required": ["reasoning", "facts"]},
}


@dataclass(frozen=True)
class Context:
    context_id: str  # G1..G4 golden, N1..N3 noisy
    chunk: Chunk

    @property
    def golden(self) -> bool:
        return self.context_id.startswith("G")


def pick_contexts(chunks: list[Chunk], essay: str, start: int, n_golden: int, n_noisy: int, seed: int) -> list[Context]:
    """`n_golden` consecutive chunks of `essay` from position `start`, and `n_noisy` seeded chunks of other essays.

    Noisy chunks come from distinct essays, so no two of them share a topic by construction.
    """
    own = [c for c in chunks if c.doc_id == essay]
    if not own:
        known = sorted({c.doc_id for c in chunks})
        raise ValueError(f"essay {essay!r} is not in the corpus; known: {known}")
    golden = own[start:start + n_golden]
    if start < 0 or len(golden) < n_golden:
        raise ValueError(f"essay {essay!r} has {len(own)} chunks; {n_golden} consecutive ones from position "
                         f"{start} do not fit (largest start: {len(own) - n_golden})")
    others: dict[str, list[Chunk]] = {}
    for c in chunks:
        if c.doc_id != essay:
            others.setdefault(c.doc_id, []).append(c)
    if len(others) < n_noisy:
        raise ValueError(f"need {n_noisy} other essays for noisy contexts, the corpus has {len(others)}")
    rng = random.Random(seed)
    noisy = [rng.choice(others[doc]) for doc in rng.sample(sorted(others), n_noisy)]
    return ([Context(f"G{i + 1}", c) for i, c in enumerate(golden)]
            + [Context(f"N{i + 1}", c) for i, c in enumerate(noisy)])


def contexts_table(contexts: list[Context]) -> pd.DataFrame:
    return pd.DataFrame([{"context_id": c.context_id, "kind": "golden" if c.golden else "noisy",
                          "chunk_id": c.chunk.chunk_id, "chunk_sha1": passage_sha1(c.chunk.text),
                          "chars": len(c.chunk.text), "starts": c.chunk.text[:80].replace("\n", " ")}
                         for c in contexts])


def generate_golden(model: str, golden: list[Context]) -> dict:
    """One cached call: a question over all four golden chunks and its golden response."""
    if len(golden) != 4:
        raise ValueError(f"the generation prompt takes exactly 4 golden passages, got {len(golden)}")
    prompt = render("continuous_qa", **{f"passage_{i + 1}": c.chunk.text for i, c in enumerate(golden)})
    reply = complete(model, prompt, stage="generate", response_format=QA_SCHEMA, validate=qa_shape, max_tokens=400)
    return {"question": reply.json["question"].strip(), "answer": reply.json["answer"].strip()}


def load_reviewed(path: str | Path, golden: list[Context]) -> dict | None:
    """The reviewed question and golden response, if `path` was made for exactly these golden chunks.

    Returns None when the file is for other chunks (another essay, start or
    corpus); a file that exists but is malformed is an error.
    """
    path = repo_path(path)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    missing = [k for k in ("golden_chunks", "question", "answer") if not data.get(k)]
    if missing:
        raise ValueError(f"{path}: missing or empty {missing}")
    wanted = [{"chunk_id": c.chunk.chunk_id, "sha1": passage_sha1(c.chunk.text)} for c in golden]
    return data if data["golden_chunks"] == wanted else None


def _normalize_fact(fact: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", fact.lower()).strip()


def unique_facts(facts: list) -> list[str]:
    """Non-empty fact strings, with exact repeats (case, spacing, punctuation aside) removed, order kept."""
    seen, out = set(), []
    for fact in facts:
        text = str(fact).strip().lstrip("-•*0123456789. )").strip()
        key = _normalize_fact(text)
        if key and key not in seen:
            seen.add(key)
            out.append(text)
    return out


def _facts_shape(reply) -> str | None:
    if not isinstance(reply, dict) or not isinstance(reply.get("facts"), list):
        return 'the reply needs a list under "facts"'
    if not unique_facts(reply["facts"]):
        return 'the "facts" list is empty'
    return None


def extract_facts(model: str, response: str, style: str) -> dict:
    """The unique facts of `response` with the IO or the chain-of-thought prompt (one cached call)."""
    if style not in STYLES:
        raise ValueError(f"fact style must be one of {sorted(STYLES)}, got {style!r}")
    reply = complete(model, render(STYLES[style], response=response), stage="facts",
                     response_format=FACTS_SCHEMAS[style], validate=_facts_shape, max_tokens=900)
    facts = unique_facts(reply.json["facts"])
    return {"style": style, "facts": facts, "listed": len(reply.json["facts"]),
            "reasoning": reply.json.get("reasoning", "")}


def score_facts(model: str, facts: dict[str, list[str]], contexts: list[Context], require_logprobs: bool,
                max_workers: int) -> pd.DataFrame:
    """One logprob-weighted score per (fact, context); ordered context by context.

    The prompt starts with the context, so consecutive calls on one local model
    share their prefix and llama.cpp re-evaluates only the fact and the question.
    """
    jobs = [(ctx, style, i, fact) for ctx in contexts for style, fs in facts.items() for i, fact in enumerate(fs)]

    def run(job):
        ctx, style, i, fact = job
        return score(model, render("fact_in_context", context=ctx.chunk.text, fact=fact), stage="score",
                     require_logprobs=require_logprobs)

    outcomes = map_items(run, jobs, max_workers, desc="fact x context",
                         stop_on=(LogprobsUnavailableError, MissingAPIKeyError))
    rows = []
    for out in outcomes:
        ctx, style, i, fact = out.item
        row = {"style": style, "fact_id": f"{style}-{i + 1}", "fact": fact, "context_id": ctx.context_id,
               "kind": "golden" if ctx.golden else "noisy"}
        if out.ok:
            r = out.value
            row.update(p=r.score, sampled=r.sampled, mass_outside=r.mass_outside, source=r.source, error=r.problem)
        else:
            row.update(p=None, sampled=None, mass_outside=None, source=None, error=out.error)
        rows.append(row)
    return pd.DataFrame(rows)


def context_combinations(context_ids: list[str], min_size: int = 2) -> list[tuple[str, ...]]:
    """Every combination of `min_size` or more contexts, smallest first (120 for 7 contexts from 2)."""
    return [combo for k in range(min_size, len(context_ids) + 1)
            for combo in itertools.combinations(context_ids, k)]


def or_binary(values: list[float | None]) -> float | None:
    """A fact is covered when any context scores it >= 0.5; unknown (None) when it hinges on a missing score."""
    if any(v is not None and v >= 0.5 for v in values):
        return 1.0
    if any(v is None for v in values):
        return None
    return 0.0


def or_soft(values: list[float | None]) -> float | None:
    """1 - prod(1 - p): the chance at least one context covers the fact, if the contexts were independent."""
    if any(v is None for v in values):
        return None
    return 1.0 - math.prod(1.0 - v for v in values)


def combination_score(fact_scores: dict[str, dict[str, float | None]], combo: tuple[str, ...], combine) -> tuple[float, int]:
    """Mean over facts of the OR-combined score; also how many facts were left out as unknown.

    `fact_scores` is {fact_id: {context_id: score}}.
    """
    values = [combine([per_context.get(c) for c in combo]) for per_context in fact_scores.values()]
    known = [v for v in values if v is not None]
    return (sum(known) / len(known) if known else math.nan), len(values) - len(known)


def combinations_table(scores: pd.DataFrame, context_ids: list[str]) -> pd.DataFrame:
    """All combinations with # golden, # noisy and the score for each fact style, binary and soft."""
    matrices = {style: {fid: dict(zip(g["context_id"], (None if pd.isna(p) else float(p) for p in g["p"])))
                        for fid, g in group.groupby("fact_id", sort=False)}
                for style, group in scores.groupby("style", sort=False)}
    rows = []
    for combo in context_combinations(context_ids):
        row = {"contexts": "+".join(combo), "size": len(combo),
               "n_golden": sum(c.startswith("G") for c in combo), "n_noisy": sum(c.startswith("N") for c in combo)}
        for style, matrix in matrices.items():
            for name, combine in (("binary", or_binary), ("soft", or_soft)):
                value, unknown = combination_score(matrix, combo, combine)
                row[f"{style}_{name}"] = value
                row[f"{style}_{name}_unknown"] = unknown
        rows.append(row)
    table = pd.DataFrame(rows)
    # Unknown-count columns only earn their place when something was unknown.
    empty = [c for c in table if c.endswith("_unknown") and not table[c].any()]
    return table.drop(columns=empty)


def per_context_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Each context alone: mean weighted score and share of facts >= 0.5, per fact style."""
    scored = scores.dropna(subset=["p"])
    out = scored.groupby(["context_id", "kind", "style"], sort=False)["p"].agg(
        mean_p="mean", covered=lambda s: float((s >= 0.5).mean()), facts="count").reset_index()
    return out.pivot_table(index=["context_id", "kind"], columns="style", values=["mean_p", "covered"]).round(3)


def run_continuous(
    model: str,
    corpus: str,
    essay: str,
    start: int,
    n_noisy: int,
    chunk_chars: int,
    seed: int,
    reviewed_qa_path: str,
    require_logprobs: bool,
    max_workers: int,
    run_name: str,
    max_facts: int = 0,
) -> dict:
    out_dir = run_dir(EXPERIMENT, run_name)
    loaded = load_corpus(corpus)
    chunks = Chunker(chunk_chars, "chars").split(loaded.documents)
    contexts = pick_contexts(chunks, essay, start, 4, n_noisy, seed)
    golden = [c for c in contexts if c.golden]
    contexts_table(contexts).to_csv(out_dir / "contexts.csv", index=False)

    generated = generate_golden(model, golden)
    reviewed = load_reviewed(reviewed_qa_path, golden) if reviewed_qa_path else None
    qa = {"question": (reviewed or generated)["question"], "answer": (reviewed or generated)["answer"],
          "source": "reviewed" if reviewed else "generated, not reviewed", "generated": generated}

    extractions = {style: extract_facts(model, qa["answer"], style) for style in STYLES}
    # max_facts > 0 keeps the first facts only: a quick run, not a result (describe() says so).
    facts = {style: e["facts"][:max_facts or None] for style, e in extractions.items()}
    scores = score_facts(model, facts, contexts, require_logprobs, max_workers)
    combos = combinations_table(scores, [c.context_id for c in contexts])

    scores.to_csv(out_dir / "fact_scores.csv", index=False)
    combos.to_csv(out_dir / "combinations.csv", index=False)
    (out_dir / "golden_qa.json").write_text(json.dumps({**qa, "facts": facts}, indent=2, ensure_ascii=False))
    return {"contexts": contexts, "qa": qa, "extractions": extractions, "facts": facts, "scores": scores,
            "combinations": combos, "max_facts": max_facts,
            "per_context": per_context_table(scores), "dir": out_dir, "skipped_files": loaded.skipped}


def describe(run: dict) -> str:
    qa, scores = run["qa"], run["scores"]
    extracted = {style: len(e["facts"]) for style, e in run["extractions"].items()}
    listed = {style: e["listed"] for style, e in run["extractions"].items()}
    n_facts = {style: len(f) for style, f in run["facts"].items()}
    lines = [
        "contexts: " + ", ".join(f"{c.context_id}={c.chunk.chunk_id}" for c in run["contexts"]),
        f"question and golden response: {qa['source']}",
        "facts: " + ", ".join(f"{s.upper()} {n} unique of {listed[s]} listed" for s, n in extracted.items()),
        f"fact x context scores: {len(scores)} (= {sum(n_facts.values())} facts x {len(run['contexts'])} contexts)",
        f"combinations: {len(run['combinations'])}",
    ]
    if run["max_facts"] and any(n < extracted[s] for s, n in n_facts.items()):
        lines.append(f"max_facts={run['max_facts']}: only the first facts are scored, so the scores below are a "
                     "quick check, not a result")
    failed = scores[scores["p"].isna()]
    if len(failed):
        lines.append(f"{len(failed)} fact scores could not be read (see below); combinations leave those facts "
                     "out where they decide the result, and count them")
    fallback = int((scores["source"] == "sampled").sum())
    if fallback:
        lines.append(f"{fallback} fact scores fell back to the sampled token (no logprobs from this backend)")
    return "\n".join(lines)
