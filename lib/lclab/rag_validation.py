"""RAG validation (seed 004): retrieval recall/precision@k and judged answers over a chunked corpus.

1. Chunk the corpus (200 tokens by default), embed and index every chunk.
2. Single-chunk questions: one generated QA pair per sampled chunk, kept when an
   automatic check supports it (the answer is in the chunk, or the LLM says the
   chunk supports it); the chunk is the one relevant id.
3. Multi-chunk questions: a reviewed file, three reference chunks per question.
4. Retrieve the top `max_k` for every question; metrics at every k come from the
   stored ranking, so they are recomputed, never re-retrieved, on a rerun.
5. Answer from the top `answer_k` chunks; judge the answer against the reference
   (the seed's judge), for relevance to the question, and for faithfulness to the
   retrieved chunks.
"""

from __future__ import annotations

import pandas as pd

from .chunking import Chunk, Chunker
from .corpus import Document, load_corpus
from .embeddings import get_embedder
from .gateway import complete
from .judge import judge_correct, judge_faithfulness, judge_relevance
from .multi_chunk_qa import read_multi_chunk_file
from .parallel import map_items
from .prompts import render
from .qa import generate_pair, sample_passages
from .retrieval_metrics import METRICS
from .runs import ItemLog, fingerprint, run_dir
from .stats import bootstrap_mean_ci, proportion_summary
from .vectorstores import open_corpus_index

EXPERIMENT = "rag_validation"
KEY = ("qa_id", "fingerprint")
QUALITY = {"judge_correct": "answer equals reference (judge)", "relevant": "answer relevance",
           "faithful": "faithfulness to retrieved chunks"}


def format_passages(hits) -> str:
    return "\n\n".join(f"Passage [{i}]\n{h.text}" for i, h in enumerate(hits))


def single_chunk_questions(model: str, chunks: list[Chunk], n: int, seed: int, out_path) -> pd.DataFrame:
    """Generate (cached) one QA pair per sampled chunk; keep those an automatic check supports.

    Every generated pair, kept or not, is written to `out_path` for review.
    """
    pool = [Document(c.chunk_id, c.text, c.doc_id) for c in chunks]
    sampled = sample_passages(pool, n, min_chars=400, seed=seed)
    outcomes = map_items(lambda p: generate_pair(model, p), sampled, 1, desc="single-chunk qa")
    rows = []
    for out in outcomes:
        row = {"qa_id": f"s-{out.item.id}", "chunk_id": out.item.id, "set": "single"}
        if out.ok:
            v = out.value
            row.update(question=v["question"], answer=v["answer"], answer_in_source=v["answer_in_source"],
                       llm_supported=v["llm_supported"], kept=bool(v["answer_in_source"] or v["llm_supported"]),
                       error=None)
        else:
            row.update(question=None, answer=None, kept=False, error=out.error)
        rows.append(row)
    df = pd.DataFrame(rows)
    df.to_csv(out_path, index=False)
    kept = df[df["kept"]].copy()
    kept["relevant"] = [[c] for c in kept["chunk_id"]]
    return kept.reset_index(drop=True)


def run_rag_validation(
    model: str,
    judge_model: str,
    corpus: str,
    store: str,
    embedder: str,
    chunk_tokens: int,
    n_single: int,
    multi_qa_path: str,
    n_multi: int,
    max_k: int,
    answer_k: int,
    seed: int,
    max_workers: int,
    run_name: str,
    max_answer_tokens: int,
) -> dict:
    if answer_k > max_k:
        raise ValueError(f"answer_k ({answer_k}) cannot exceed max_k ({max_k}): answers use the retrieved chunks")
    out_dir = run_dir(EXPERIMENT, run_name)
    log = ItemLog(out_dir / "items.jsonl", KEY)
    loaded = load_corpus(corpus)
    chunker = Chunker(chunk_tokens, "tokens")
    chunks = chunker.split(loaded.documents)

    emb = get_embedder(embedder)
    index = open_corpus_index(store, corpus, chunker.name, emb, directory=out_dir / "chroma")
    indexing = index.add(chunks)

    single = single_chunk_questions(model, chunks, n_single, seed, out_dir / "single_chunk_qa.csv")
    multi = read_multi_chunk_file(multi_qa_path, chunks, chunker)
    multi = (multi.head(n_multi) if n_multi else multi).assign(set="multi")
    questions = pd.concat([single[["qa_id", "set", "question", "answer", "relevant"]],
                           multi[["qa_id", "set", "question", "answer", "relevant"]]], ignore_index=True)

    settings = (model, judge_model, store, emb.spec, chunker.name, max_k, answer_k, max_answer_tokens)
    key = lambda q: (q.qa_id, fingerprint(settings, q.question, q.answer, list(q.relevant)))  # noqa: E731
    done = log.done()
    all_questions = list(questions.itertuples(index=False))
    pending = [q for q in all_questions if key(q) not in done]

    def answer(q):
        hits = index.search(q.question, max_k)
        top = hits[:answer_k]
        reply = complete(model, render("rag_answer", passages=format_passages(top), question=q.question),
                         stage="answer", max_tokens=max_answer_tokens)
        return hits, reply

    answers = map_items(answer, pending, max_workers, desc="retrieve+answer")

    def judge_and_log(outcome) -> dict:
        q = outcome.item
        row = {"qa_id": q.qa_id, "fingerprint": key(q)[1], "set": q.set, "question": q.question, "reference": q.answer,
               "relevant_chunks": list(q.relevant), "model": model, "judge_model": judge_model}
        if not outcome.ok:
            row.update(error=f"retrieve/answer: {outcome.error}")
            log.append(row)
            return row
        hits, reply = outcome.value
        passages = format_passages(hits[:answer_k])
        row.update(retrieved=[h.chunk_id for h in hits], scores=[round(h.score, 4) for h in hits],
                   response=reply.text, prompt_tokens=reply.prompt_tokens, answer_latency_s=reply.call_latency_s)
        verdicts = {**judge_correct(judge_model, q.question, reply.text, q.answer),
                    **judge_relevance(judge_model, q.question, reply.text),
                    **judge_faithfulness(judge_model, q.question, reply.text, passages)}
        errors = [f"{k}: {v}" for k, v in verdicts.items() if k.endswith("_error") and v]
        row.update(verdicts, error="; ".join(errors) or None)
        log.append(row)
        return row

    map_items(judge_and_log, answers, max_workers, desc="judge")
    items = log.latest({key(q) for q in all_questions})
    curves = retrieval_curves(items, max_k)
    quality = answer_quality(items)
    curves.to_csv(out_dir / "retrieval_curves.csv", index=False)
    quality.to_csv(out_dir / "answer_quality.csv", index=False)
    return {"items": items, "curves": curves, "quality": quality, "headline": headline(curves),
            "dir": out_dir, "indexing": indexing, "n_chunks": len(chunks), "index": index,
            "n_single_generated": n_single, "n_single_kept": len(single), "n_multi": len(multi),
            "n_resumed": len(questions) - len(pending), "skipped_files": loaded.skipped}


def retrieval_curves(items: pd.DataFrame, max_k: int) -> pd.DataFrame:
    """Mean of every metric at k = 1..max_k per question set, with bootstrap 95 % CIs for recall and precision."""
    rows = []
    scored = items[items["retrieved"].notna()] if "retrieved" in items else items.iloc[:0]
    for set_name, group in scored.groupby("set", sort=False):
        for k in range(1, max_k + 1):
            values = {name: [fn(r, rel, k) for r, rel in zip(group["retrieved"], group["relevant_chunks"])]
                      for name, fn in METRICS.items()}
            row = {"set": set_name, "k": k, "n": len(group),
                   "undefined": sum(v is None for v in values["recall"])}
            for name, vals in values.items():
                defined = [v for v in vals if v is not None]
                row[name] = sum(defined) / len(defined) if defined else float("nan")
            for name in ("recall", "precision"):
                row[f"{name}_lo"], row[f"{name}_hi"] = bootstrap_mean_ci(values[name])
            rows.append(row)
    return pd.DataFrame(rows)


def headline(curves: pd.DataFrame) -> pd.DataFrame:
    """The seed's numbers: single-chunk recall@1..10 and precision@1; multi-chunk P, R, F1 at k = 3."""
    rows = []
    single = curves[curves["set"] == "single"]
    for r in single.itertuples():
        rows.append({"set": "single", "metric": f"recall@{r.k}", "value": r.recall, "lo": r.recall_lo,
                     "hi": r.recall_hi, "n": r.n})
    for r in single[single["k"] == 1].itertuples():
        rows.append({"set": "single", "metric": "precision@1", "value": r.precision, "lo": r.precision_lo,
                     "hi": r.precision_hi, "n": r.n})
    for r in curves[(curves["set"] == "multi") & (curves["k"] == 3)].itertuples():
        rows += [{"set": "multi", "metric": "precision@3", "value": r.precision, "lo": r.precision_lo,
                  "hi": r.precision_hi, "n": r.n},
                 {"set": "multi", "metric": "recall@3", "value": r.recall, "lo": r.recall_lo, "hi": r.recall_hi,
                  "n": r.n},
                 {"set": "multi", "metric": "F1@3", "value": r.f1, "lo": float("nan"), "hi": float("nan"),
                  "n": r.n}]
    return pd.DataFrame(rows)


def answer_quality(items: pd.DataFrame) -> pd.DataFrame:
    """Judge, relevance and faithfulness rates per question set, with Wilson 95 % CIs."""
    frames = []
    for column, label in QUALITY.items():
        if column not in items:
            continue
        s = proportion_summary(items, ["set"], column, "rate").assign(measure=label)
        frames.append(s)
    if not frames:
        return pd.DataFrame()
    cols = ["set", "measure", "rate_n", "rate_acc", "rate_lo", "rate_hi", "rate_missing"]
    out = pd.concat(frames, ignore_index=True)[cols]
    return out.rename(columns={"rate_n": "n", "rate_acc": "rate", "rate_lo": "lo", "rate_hi": "hi",
                               "rate_missing": "unscored"})


def describe(run: dict) -> str:
    ix = run["indexing"]
    lines = [
        f"{run['n_chunks']} chunks; index {run['index'].name!r} ({run['index'].store_name}) holds {ix.count}: "
        f"{ix.written} written this run in {ix.seconds:.1f} s"
        + (f" ({ix.chunks_per_second:.1f} chunks/s)" if ix.written else "") + f", {ix.already_indexed} already there",
        f"single-chunk questions: {run['n_single_kept']} of {run['n_single_generated']} sampled chunks kept "
        f"after the automatic check; multi-chunk questions: {run['n_multi']} reviewed",
        f"{run['n_resumed']} questions already done in {run['dir'] / 'items.jsonl'}, resumed",
    ]
    items = run["items"]
    failed = int(items["error"].notna().sum()) if "error" in items else 0
    if failed:
        lines.append(f"{failed} items have an error (see the table below); a rerun retries them")
    return "\n".join(lines)
