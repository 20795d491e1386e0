"""Long context vs RAG (seed 000 §3b): the same document set, stuffed into the prompt or retrieved from.

For each validated QA pair, the distractors that fill the context budget are
chosen once (seeded). At a noise level of p %, the first round(p % of them) join
the answer document, so each level's set contains the previous one, as in the
seed's "keep adding distractors". The set is then
- shuffled (seeded) into one long context and answered (method `long_context`);
- chunked, indexed in its own vector-store collection, and the top-k chunks for
  the question answered with the same prompt (method `rag`).
Both are judged with the seed's judge and the judge-free string check; prompt
tokens and the answering call's latency give the cost side.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import pandas as pd

from .chunking import Chunker
from .context import answer_prompt, candidate_distractors, fill_budget
from .corpus import Document
from .embeddings import get_embedder
from .gateway import budget_counters, complete, tokenizer_name
from .judge import judge_correct, string_match
from .parallel import map_items
from .qa import load_validated
from .runs import ItemLog, fingerprint, problem_lines, run_dir
from .stats import proportion_summary
from .vectorstores import index_name, open_index

EXPERIMENT = "context_vs_rag"
KEY = ("qa_id", "noise_pct", "method", "fingerprint")
METHODS = ("long_context", "rag")


@dataclass(frozen=True)
class DocumentSet:
    qa_id: str
    question: str
    gold: str
    answer_id: str
    noise_pct: int
    docs: tuple[Document, ...]  # answer + distractors, in the (shuffled) order of the long context

    @property
    def n_distractors(self) -> int:
        return len(self.docs) - 1


def n_at_level(noise_pct: float, n_max: int) -> int:
    """Distractors at a noise level: p % of those that fill the budget, rounded half up."""
    if not 0 <= noise_pct <= 100:
        raise ValueError(f"noise levels are percentages within 0..100, got {noise_pct}")
    return math.floor(noise_pct / 100 * n_max + 0.5)


def build_sets(qa: pd.DataFrame, pool: list[Document], context_tokens: int, noise_levels: list[int],
               seed: int, count, count_text) -> list[DocumentSet]:
    by_id = {d.id: d for d in pool}
    sets = []
    for row in qa.itertuples():
        answer = by_id[row.doc_id]
        rng = random.Random(f"{seed}:{row.qa_id}")
        candidates = candidate_distractors(answer, pool, row.answer, rng)
        full = fill_budget(answer, candidates, row.question, context_tokens, count, count_text)
        for level in noise_levels:
            docs = [answer, *full[: n_at_level(level, len(full))]]
            random.Random(f"{seed}:{row.qa_id}:{level}").shuffle(docs)
            sets.append(DocumentSet(row.qa_id, row.question, row.answer, answer.id, level, tuple(docs)))
    return sets


def retrieve(doc_set: DocumentSet, store: str, embedder_spec: str, chunker: Chunker, top_k: int,
             directory) -> dict:
    """Index exactly this document set in its own collection and retrieve the top-k chunks."""
    embedder = get_embedder(embedder_spec)
    name = index_name("cvr", doc_set.qa_id, f"n{doc_set.noise_pct}", chunker.name, embedder.spec)
    t0 = time.perf_counter()
    index = open_index(store, name, embedder, directory=directory)
    index.add(chunker.split(doc_set.docs))
    t1 = time.perf_counter()
    hits = index.search(doc_set.question, top_k)
    t2 = time.perf_counter()
    return {"hits": hits, "index_s": t1 - t0, "search_s": t2 - t1}


def run_context_vs_rag(
    model: str,
    judge_model: str,
    corpus: str,
    qa_path: str,
    n_qa: int,
    context_tokens: int,
    noise_levels: list[int],
    store: str,
    embedder: str,
    chunk_tokens: int,
    top_k: int,
    seed: int,
    max_workers: int,
    run_name: str,
    max_answer_tokens: int,
) -> dict:
    out_dir = run_dir(EXPERIMENT, run_name)
    log = ItemLog(out_dir / "items.jsonl", KEY)
    loaded, pool, qa = load_validated(corpus, qa_path, n_qa)
    count, count_text = budget_counters(model)
    sets = build_sets(qa, pool, context_tokens, noise_levels, seed, count, count_text)
    chunker = Chunker(chunk_tokens, "tokens")
    settings = (model, judge_model, max_answer_tokens)
    rag_settings = (store, embedder, chunker.name, top_k)

    def key(trial) -> tuple:
        s, m = trial
        made_with = [settings, [d.id for d in s.docs], s.question] + ([rag_settings] if m == "rag" else [])
        return (s.qa_id, s.noise_pct, m, fingerprint(*made_with))

    done = log.done()
    all_trials = [(s, m) for s in sets for m in METHODS]
    trials = [t for t in all_trials if key(t) not in done]

    def prepare(trial) -> dict:
        doc_set, method = trial
        if method == "long_context":
            return {"prompt": answer_prompt(doc_set.docs, doc_set.question), "retrieved": None}
        got = retrieve(doc_set, store, embedder, chunker, top_k, out_dir / "chroma")
        chunks = [Document(h.chunk_id, h.text) for h in got["hits"]]
        return {"prompt": answer_prompt(chunks, doc_set.question), "retrieved": got}

    # Retrieval first (cheap, and it needs the embedder, not the LLM), then every answer.
    prepared = map_items(prepare, trials, 1, desc="prepare")
    answers = map_items(lambda o: complete(model, o.value["prompt"], stage="answer",
                                           max_tokens=max_answer_tokens) if o.ok else _raise(o.error),
                        prepared, max_workers, desc="answer")

    def judge_and_log(outcome) -> dict:
        prep = outcome.item
        doc_set, method = prep.item
        row = {"qa_id": doc_set.qa_id, "noise_pct": doc_set.noise_pct, "method": method,
               "fingerprint": key(prep.item)[-1],
               "n_distractors": doc_set.n_distractors, "question": doc_set.question, "gold": doc_set.gold,
               "model": model, "judge_model": judge_model}
        retrieved = prep.value["retrieved"] if prep.ok else None
        if retrieved is not None:
            ids = [h.chunk_id for h in retrieved["hits"]]
            row.update(retrieved=ids, answer_doc_retrieved=any(i.startswith(doc_set.answer_id + "::") for i in ids),
                       index_s=round(retrieved["index_s"], 3), search_s=round(retrieved["search_s"], 4))
        if not outcome.ok:
            row.update(response=None, error=f"answer: {outcome.error}", judge_correct=None, judge_error=None,
                       string_match=None)
        else:
            reply = outcome.value
            verdict = judge_correct(judge_model, doc_set.question, reply.text, doc_set.gold)
            row.update(response=reply.text, prompt_tokens=reply.prompt_tokens, answer_cached=reply.cached,
                       answer_latency_s=reply.call_latency_s, string_match=string_match(reply.text, doc_set.gold),
                       **verdict, error=verdict["judge_error"] and f"judge: {verdict['judge_error']}")
        log.append(row)
        return row

    map_items(judge_and_log, answers, max_workers, desc="judge")
    items = log.latest({key(t) for t in all_trials})
    summary = summarize(items)
    summary.to_csv(out_dir / "summary.csv", index=False)
    return {"items": items, "summary": summary, "dir": out_dir, "n_qa": len(qa), "n_sets": len(sets),
            "n_resumed": 2 * len(sets) - len(trials), "passages": len(pool), "skipped_files": loaded.skipped,
            "tokenizer": tokenizer_name(model), "context_tokens": context_tokens}


def _raise(error: str):
    raise RuntimeError(error)


def summarize(items: pd.DataFrame) -> pd.DataFrame:
    """Per (noise level, method): accuracies with 95 % CIs, documents, prompt tokens and answer time."""
    by = ["noise_pct", "method"]
    judge = proportion_summary(items, by, "judge_correct", "judge")
    match = proportion_summary(items, by, "string_match", "match").drop(columns="match_missing")
    cost = items.groupby(by).agg(
        n_distractors=("n_distractors", "mean"),
        prompt_tokens=("prompt_tokens", "mean"),
        answer_s=("answer_latency_s", "mean"),
    ).reset_index()
    out = judge.merge(match, on=by).merge(cost, on=by)
    if "answer_doc_retrieved" in items:
        hit = items[items["method"] == "rag"].groupby("noise_pct")["answer_doc_retrieved"].mean()
        out["answer_doc_retrieved"] = [hit.get(n) if m == "rag" else None for n, m in zip(out["noise_pct"], out["method"])]
    return out


def describe(run: dict) -> str:
    lines = [
        f"{run['n_qa']} QA pairs x noise levels -> {run['n_sets']} document sets, 2 methods each "
        f"({run['n_resumed']} answers already done in {run['dir'] / 'items.jsonl'}, resumed)",
        f"context budget {run['context_tokens']} tokens ({run['tokenizer']}); {run['passages']} passages in the corpus",
    ]
    items = run["items"]
    lines += problem_lines(run["skipped_files"], items)
    return "\n".join(lines)
