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
6. Claim-level diagnostics (`claim_metrics`): the response and the reference cut into claims, each checked
   against the other text and every chunk the answer read, giving RAGChecker's metrics (lclab.scoring.claims).
7. The judge (never the model under test by default: lclab.models.judge_choice) reads the shipped labelled texts
   of each kind it judges (answer correctness, relevance, faithfulness, and the NLI hypotheses for the claim
   checks; lclab.scoring.judge_card): a kind whose card holds chance is printed as "judge uninformative on
   <kind>", never as a number.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass

import pandas as pd

from ..models.embeddings import get_embedder
from ..models.judge_choice import Judge, choose_judge
from ..pipeline import Given, Stage
from ..prompts import render
from ..qa import sample_passages
from ..qa.checks import apply_checks
from ..qa.generate import generated_pairs
from ..qa.multi_chunk import read_multi_chunk_file
from ..retrieval.chunking import Chunk, Chunker
from ..retrieval.vectorstores import open_corpus_index
from ..runs.folders import fingerprint
from ..runs.runner import Result, Run, answer_columns, headline, skipped_note
from ..runs.samples import Sample
from ..scoring.claims import claim_metrics_table, claim_score, read_at
from ..scoring.judge_reading import read_judge
from ..scoring.judges import JUDGE
from ..scoring.reliability import card_notes, cards
from ..scoring.score import LAYOUT
from ..text.corpus import Document, Corpus, load_corpus
from .curves import answer_quality, retrieval_curves, seed_numbers
from .parameters import Parameters
from .stages import ANSWER, EXPERIMENT, answering, judges

KEY = ("qa_id", "fingerprint")
MIN_PASSAGE_CHARS = 400  # a shorter chunk seldom holds both a question and its answer


def format_passages(hits) -> str:
    return "\n\n".join(render("rag_passage", index=i, text=h.text) for i, h in enumerate(hits))


def indexed_chunks(chunks: list[Chunk], question_chunks, n_documents: int, seed: int) -> list[Chunk]:
    """The chunks a run indexes: all of them, or with n_documents > 0 those of the documents the multi-chunk
    questions' reference chunks come from and of others drawn by seed, n_documents documents in all (never fewer
    than the questions need). The run's plan chooses the same."""
    if not n_documents:
        return chunks
    doc_of = {c.chunk_id: c.doc_id for c in chunks}
    needed = list(dict.fromkeys(doc_of[i] for ids in question_chunks for i in ids if i in doc_of))
    others = sorted({c.doc_id for c in chunks} - set(needed))
    random.Random(seed).shuffle(others)
    keep = set(needed + others[:max(0, n_documents - len(needed))])
    return [c for c in chunks if c.doc_id in keep]


def subset_label(chunks: list[Chunk], n_documents: int) -> str:
    """A name for the indexed documents (part of the index's name), "" for the whole corpus."""
    if not n_documents:
        return ""
    return f"{len({c.doc_id for c in chunks})}docs-{fingerprint(sorted({c.doc_id for c in chunks}))[:6]}"


@dataclass(frozen=True)
class Inputs:
    """What a run reads before any call, the same for its plan: the corpus, every chunk of it, the reviewed
    multi-chunk questions (checked against the chunks), the chunks indexed, and the chunks a question is
    generated from."""
    loaded: Corpus
    chunker: Chunker
    every: list[Chunk]
    multi: pd.DataFrame
    chunks: list[Chunk]
    generated_from: list[Document]


def inputs(p: Parameters) -> Inputs:
    """The run's inputs (the run and its plan both start here)."""
    loaded = load_corpus(p.corpus)
    chunker = Chunker(p.chunk_tokens, "tokens")
    every = chunker.split(loaded.documents)
    multi = read_multi_chunk_file(p.multi_qa_path, every, chunker)
    multi = (multi.head(p.n_multi) if p.n_multi else multi).assign(set="multi")
    chunks = indexed_chunks(every, multi["relevant"], p.n_documents, p.seed)
    pool = [Document(c.chunk_id, c.text, c.doc_id) for c in chunks]
    return Inputs(loaded, chunker, every, multi, chunks,
                  sample_passages(pool, p.n_single, min_chars=MIN_PASSAGE_CHARS, seed=p.seed))


def single_chunk_questions(run: Run, model: str, chosen: list[Document]) -> pd.DataFrame:
    """Generate (resumable, cached) one QA pair per chosen chunk, through 00's candidates and checks
    (lclab.qa.generate, lclab.qa.checks); keep those whose answer the chunk holds or the generator gave back.

    Every generated pair, kept or not, is written to single_chunk_qa.csv for review, with the first removing check
    it fails (`failed_check`; 06 does not drop a pair for it: the model under test writes these questions, and a
    small one's fail the checks more often than not, which would leave 06 without single-chunk questions).
    """
    got = generated_pairs(run, model, chosen, 1, "single_chunk_qa.jsonl")
    ok = got[got["error"].isna()]
    _, removed, _ = apply_checks(ok) if len(ok) else (ok, ok.assign(failed_check=None), {})
    df = pd.DataFrame({"qa_id": [f"s-{d}" for d in got["doc_id"]], "chunk_id": got["doc_id"], "set": "single"})
    for column in ("question", "answer", "answer_in_source", "llm_supported"):
        df[column] = got.get(column)
    df["kept"] = got["error"].isna() & (df["answer_in_source"].fillna(False).astype(bool)
                                        | df["llm_supported"].fillna(False).astype(bool))
    df["failed_check"] = removed["failed_check"].reindex(got.index)
    df["error"] = got["error"]
    df.to_csv(run.dir / "single_chunk_qa.csv", index=False)
    kept = df[df["kept"]].copy()
    kept["relevant"] = [[c] for c in kept["chunk_id"]]
    return kept.reset_index(drop=True)


def prepare(questions: pd.DataFrame) -> list[Sample]:
    """Each question as a Sample: its input is the query the retrieval embeds (the answer prompt is built from
    the chunks retrieved), its target the reference answer; the question is its own cluster."""
    return [Sample(id=q.qa_id, input=q.question, target=q.answer, source=q,
                   metadata={"set": q.set, "relevant_chunks": list(q.relevant), "cluster": q.qa_id})
            for q in questions.itertuples(index=False)]


def retrieved(given: Given, s: Sample, row: dict) -> dict:
    """A question's top `max_k` chunks (their ids and scores, for the retrieval curves) and the top `answer_k` as
    the passages its answer reads."""
    p, hits = given.p, given.built["index"].search(s.source.question, given.p.max_k)
    return {"retrieved": [h.chunk_id for h in hits], "scores": [round(h.score, 4) for h in hits],
            "passages": format_passages(hits[:p.answer_k])}


def answered(given: Given, s: Sample, row: dict) -> dict:
    """The answer from the passages retrieval wrote down."""
    return answer_columns(ANSWER.send(given.p, answering(given.p.answer_k).with_retrieved(s, row["passages"])))


def claims(given: Given, s: Sample, row: dict) -> dict:
    """The claim diagnostics of an answered question, against the chunks its answer read (lclab.scoring.claims)."""
    text = given.built["chunk_text"]
    read = [text[i] for i in row["retrieved"][:given.p.answer_k]]
    return claim_score(given.judge, s.input, row["response"], s.target, read).columns("claims", spread=True)


def every_verdict(given: Given, s: Sample, row: dict) -> dict:
    """Every judge kind's verdict on the answer, each asked under its own gateway stage (judges()): all of them
    are asked whatever the others said, so each kind's rate reads every row its own verdict was read on; any
    unreadable verdict is the row's error (the kinds' errors joined, in the kinds' order)."""
    out, errors = {}, []
    for _, stage in judges():
        got = stage.write(given, s, row)
        if failed := got.pop("error", None):
            errors.append(failed)
        out.update(got)
    return {**out, "error": "; ".join(errors) or None}


def stages(claim_metrics: bool) -> tuple[Stage, ...]:
    """A question's stages as the runner executes them: retrieval, the answer, the judges (every kind's stage,
    judges(), asked together: one's unreadable verdict does not stop the others), and with `claim_metrics` the
    claim checks."""
    return (Stage("retrieve", role="retrieval", write=retrieved), ANSWER.but(write=answered),
            Stage("judge", role="judge", write=every_verdict),
            *([Stage("claims", role="judge", write=claims)] if claim_metrics else []))


def run_rag_validation(p: Parameters) -> Result:
    if p.answer_k > p.max_k:
        raise ValueError(f"answer_k ({p.answer_k}) cannot exceed max_k ({p.max_k}): answers use the retrieved chunks")
    chosen = choose_judge(p.model, p.judge_model)
    judge_model = chosen.spec
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p) | {"judge_model": judge_model, "judge": chosen}) as run:
        read = inputs(p)
        loaded, chunker, every, multi, chunks = read.loaded, read.chunker, read.every, read.multi, read.chunks
        emb = get_embedder(p.embedder)
        index = open_corpus_index(p.store, p.corpus, chunker.name, emb, directory=run.dir / "chroma",
                                  subset=subset_label(chunks, p.n_documents))
        indexing = index.add(chunks)

        single = single_chunk_questions(run, p.model, read.generated_from)
        columns = ["qa_id", "set", "question", "answer", "relevant"]
        questions = pd.concat([single[columns], multi[columns]], ignore_index=True)
        settings = (p.model, judge_model, p.store, emb.spec, chunker.name, p.max_k, p.answer_k, p.max_answer_tokens,
                    JUDGE, p.self_consistency, LAYOUT)

        built = {"index": index, "chunk_text": {c.chunk_id: c.text for c in chunks}}
        items = run.stages(
            prepare(questions), stages(p.claim_metrics), Given(p, judge_model, built), log=run.log(KEY),
            key=lambda s: (s.id, fingerprint(settings, s.input, s.target, s["relevant_chunks"])),
            describe=lambda s: {"set": s["set"], "question": s.input, "reference": s.target,
                                "relevant_chunks": s["relevant_chunks"], "model": p.model, "judge_model": judge_model})
        curves = retrieval_curves(items, p.max_k)
        notes = [
            index_note(len(chunks), index, indexing), *documents_note(chunks, every, p.n_documents),
            f"single-chunk questions: {len(single)} of {p.n_single} sampled chunks kept (the answer in the chunk or given "
            "back; single_chunk_qa.csv says which of 00's checks each fails); "
            f"multi-chunk questions: {len(multi)} reviewed",
            run.resume_note(),
        ] + skipped_note(loaded.skipped)
        tables, judged_notes, items = judged_tables(items, chosen, p.claim_metrics, p.card_texts)
        notes += judged_notes
        single = curves[(curves["set"] == "single") & (curves["k"] == p.answer_k)] if len(curves) else curves
        first = single.iloc[0] if len(single) else {}
        tables = {"retrieval_curves": curves, **tables}
        return run.result(seed_numbers(curves), items=items, notes=notes, tables=tables,
                          headline=headline(f"single-chunk recall@{p.answer_k}", first.get("recall"),
                                            first.get("recall_lo"), first.get("recall_hi")))


def judged_tables(items: pd.DataFrame, judge: Judge, claim_metrics: bool, card_texts: int
                  ) -> tuple[dict, list[str], pd.DataFrame]:
    """The judged tables of a run and their lines: each judge's card on its kind's shipped texts (`judge_card`),
    the answer quality corrected by those cards, the cards on the run's own items (`reliability`) and the claim
    metrics, each read only where its judge's card says it can tell right from wrong; and the items with each
    verdict read at its card's threshold."""
    readings = {k.column: read_judge(judge, k.kind, card_texts) for k, _ in judges()}
    for column, reading in readings.items():
        items = reading.read_items(items, column)
    if claim_metrics:
        readings["claims"] = read_judge(judge, "claim_support", card_texts)
        items = read_at(items, readings["claims"].threshold)
    reliability = answer_cards(items, judge.label)
    tables = {"answer_quality": answer_quality(items, readings), "reliability": reliability,
              "judge_card": pd.concat([r.table() for r in readings.values()], ignore_index=True)}
    if claim_metrics:
        tables["claim_metrics"] = claim_metrics_table(items, "qa_id", "questions", readings["claims"])
    notes = [f"judge: {judge.label} ({judge.why})"] + [r.line for r in readings.values()]
    return tables, notes + card_notes(reliability) + (claims_note(items) if claim_metrics else []), items


def claims_note(items: pd.DataFrame) -> list[str]:
    """Which questions have no claim diagnostics, and why (they are left out of claim_metrics, never scored 0)."""
    failed = items[items["claims_error"].notna()] if "claims_error" in items else items.iloc[:0]
    return [f"claims: {len(failed)} of {len(items)} questions without claim metrics ("
            + "; ".join(f"{r.qa_id}: {str(r.claims_error)[:120]}" for r in failed.head(3).itertuples())
            + (", ..." if len(failed) > 3 else "") + ")"] if len(failed) else []


def documents_note(chunks: list[Chunk], every: list[Chunk], n_documents: int) -> list[str]:
    """What a run over part of the corpus indexed, and what that means for its numbers."""
    if not n_documents:
        return []
    docs, total = len({c.doc_id for c in chunks}), len({c.doc_id for c in every})
    return [f"n_documents={n_documents}: {docs} of the corpus's {total} documents indexed ({len(chunks)} of "
            f"{len(every)} chunks): a quick run; retrieval among fewer chunks is easier, so these recalls are not "
            "the whole corpus's"]


def index_note(n_chunks: int, index, ix) -> str:
    """What the vector store holds and what this run wrote to it."""
    return (f"{n_chunks} chunks; index {index.name!r} ({index.store_name}) holds {ix.count}: "
            f"{ix.written} written this run in {ix.seconds:.1f} s"
            + (f" ({ix.chunks_per_second:.1f} chunks/s)" if ix.written else "") + f", {ix.already_indexed} already there")


def answer_cards(items: pd.DataFrame, judge_model: str) -> pd.DataFrame:
    """The reliability card of each judge kind on the run's own items (labels where its texts have any), beside its
    judge-free baseline; the judges' cards on the shipped texts are `judge_card`."""
    return cards([kind.card(items, judge_model, f"{kind.metric} (06)") for kind, _ in judges()])
