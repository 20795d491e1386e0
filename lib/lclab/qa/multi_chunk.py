"""Questions that need three chunks (seed 004, "Need for dataset construction").

Each candidate comes from three consecutive chunks of one essay: the LLM is
asked for a question whose answer combines a fact from each. A person then
reviews the CSV (column `validated`: yes/no, `review_note`: why, or what was
corrected), and the experiments use only the rows marked yes.

    python -m lclab.qa.multi_chunk --model local/qwen2.5-coder-1.5b --n 16 \
        --out results/multi_chunk_candidates.csv

Generation goes through the trial runner (results/make_qa_set/<run_name>/multi_chunk.jsonl),
so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import pandas as pd

from ..models import Request, complete
from ..paths import repo_path
from ..pipeline import Given, Stage
from ..prompts import render
from ..retrieval.chunking import Chunk, Chunker
from ..runs.folders import fingerprint
from ..runs.runner import Run
from ..runs.samples import Sample
from ..text.corpus import PAUL_GRAHAM, load_corpus, passage_sha1
from ..text.hand_tables import read_hand_table
from .generate import Generating, qa_shape
from .review import review_marks

COLUMNS = ["qa_id", "chunker", "chunk_ids", "chunk_sha1s", "question", "answer", "validated", "review_note"]
REFERENCE_CHUNKS = 3


def sample_triples(chunks: list[Chunk], n: int, seed: int, min_chars: int = 400) -> list[list[Chunk]]:
    """Up to n runs of three consecutive, substantial chunks, each from a different document."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    rng = random.Random(seed)
    docs = sorted(by_doc)
    rng.shuffle(docs)
    triples = []
    for doc in docs:
        runs = [by_doc[doc][i : i + 3] for i in range(len(by_doc[doc]) - 2)]
        runs = [r for r in runs if all(len(c.text) >= min_chars for c in r)]
        if runs:
            triples.append(rng.choice(runs))
        if len(triples) == n:
            break
    return triples


def candidate_prompt(triple: list[Chunk]) -> str:
    """The exact prompt that asks for one question needing all three chunks."""
    return render("qa_multi_chunk", chunk1=triple[0].text, chunk2=triple[1].text, chunk3=triple[2].text)


CANDIDATE = Request(response_format="json", max_tokens=200, validate=qa_shape)


def generate_candidate(model: str, triple: list[Chunk]) -> dict:
    reply = complete(model, candidate_prompt(triple), stage="qa_generation", request=CANDIDATE).json
    return {"question": reply["question"].strip(), "answer": reply["answer"].strip()}


# One candidate per triple of chunks; the Given's parameters: the generator and its concurrent calls.
GENERATE = Stage("qa_generation", request=lambda g: CANDIDATE, prompt=lambda s: s.input, workers="workers",
                 write=lambda given, s, row: generate_candidate(given.p.model, s.source))


def generate_review_file(model: str, triples: list[list[Chunk]], chunker: Chunker, path: Path,
                         workers: int = 1, run_name: str = "multi_chunk") -> pd.DataFrame:
    """Generate a candidate per triple and write the review CSV, chunk texts included for the reviewer."""
    def describe(sample: Sample) -> dict:
        triple, ids = sample.source, sample.id
        return {"qa_id": f"m-{passage_sha1(ids)}", "chunker": chunker.name,
                "chunk_sha1s": ";".join(passage_sha1(c.text) for c in triple),
                **{f"chunk{i}": c.text for i, c in enumerate(triple, start=1)}}

    with Run("make_qa_set", run_name) as run:  # filed with the QA sets 00 makes
        samples = [Sample(id=";".join(c.chunk_id for c in t), input=candidate_prompt(t), source=t,
                          metadata={"chunk_ids": [c.chunk_id for c in t], "cluster": t[0].doc_id}) for t in triples]
        items = run.stages(
            samples, [GENERATE], Given(Generating(model, workers)),
            log=run.log(("chunk_ids", "fingerprint"), "multi_chunk.jsonl"),
            key=lambda s: (s.id, fingerprint(model, [c.text for c in s.source])), describe=describe)
    df = items.reindex(columns=COLUMNS + [f"chunk{i}" for i in range(1, 4)] + ["error"])
    failed = df["error"].notna()
    df.loc[failed, ["question", "answer"]] = ""
    df["validated"] = ["no" if f else "" for f in failed]
    df["review_note"] = [f"generation failed: {e}" if f else "" for f, e in zip(failed, df["error"])]
    df = df.drop(columns="error")
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)
    return df


def read_multi_chunk_file(path: str | Path, chunks: list[Chunk], chunker: Chunker) -> pd.DataFrame:
    """The reviewed rows marked yes, each with exactly three reference chunks that still match the corpus."""
    path = repo_path(path)
    df = read_hand_table(path, tuple(COLUMNS), "multi-chunk QA file")
    marks = review_marks(df, path)
    if (marks == "").all():
        raise ValueError(f"{path} has not been reviewed: mark each row's `validated` column yes or no")
    df = df[marks == "yes"].reset_index(drop=True)
    by_id = {c.chunk_id: c for c in chunks}
    problems = []
    for row in df.itertuples():
        ids, sums = row.chunk_ids.split(";"), row.chunk_sha1s.split(";")
        if row.chunker != chunker.name:
            problems.append(f"{row.qa_id}: made with chunker {row.chunker}, this run chunks as {chunker.name}")
        elif len(ids) != REFERENCE_CHUNKS or len(sums) != REFERENCE_CHUNKS:
            problems.append(f"{row.qa_id}: needs exactly {REFERENCE_CHUNKS} reference chunks, has {len(ids)}")
        elif any(i not in by_id or passage_sha1(by_id[i].text) != s for i, s in zip(ids, sums)):
            problems.append(f"{row.qa_id}: its chunks no longer match the corpus")
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    return df.assign(relevant=df["chunk_ids"].str.split(";"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Generate multi-chunk QA candidates for review.")
    parser.add_argument("--model", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--corpus", default=PAUL_GRAHAM)
    parser.add_argument("--chunk-tokens", type=int, default=200)
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/multi_chunk_candidates.csv")
    args = parser.parse_args(argv)
    chunker = Chunker(args.chunk_tokens, "tokens")
    chunks = chunker.split(load_corpus(args.corpus).documents)
    triples = sample_triples(chunks, args.n, args.seed)
    df = generate_review_file(args.model, triples, chunker, repo_path(args.out))
    print(f"{len(df)} candidates -> {repo_path(args.out)}; review them, then copy the file to data/")


if __name__ == "__main__":
    main()
