"""The contexts of the continuous dataset (seed 002): golden chunks G1-G4 of one essay, noisy chunks N1-N3,
and the question whose golden response needs all four golden chunks."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..models import Request, complete
from ..paths import repo_path
from ..prompts import render
from ..qa import qa_shape
from ..retrieval.chunking import Chunk
from ..text.corpus import passage_sha1

QA_SCHEMA = {"type": "object", "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
             "required": ["question", "answer"]}


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


GENERATION_TOKENS = 400  # a question and its golden response, as JSON
GENERATE_STAGE = "generate"  # the gateway stage of the golden QA's generation (run and plan)
GENERATION = Request(max_tokens=GENERATION_TOKENS, response_format=QA_SCHEMA, validate=qa_shape)  # run and plan


def generation_prompt(golden: list[Context]) -> str:
    """The exact prompt asking for a question over the four golden chunks."""
    return render("continuous_qa", **{f"passage_{i + 1}": c.chunk.text for i, c in enumerate(golden)})


def generate_golden(model: str, golden: list[Context]) -> dict:
    """One cached call: a question over all four golden chunks and its golden response."""
    if len(golden) != 4:
        raise ValueError(f"the generation prompt takes exactly 4 golden passages, got {len(golden)}")
    reply = complete(model, generation_prompt(golden), stage=GENERATE_STAGE, request=GENERATION)
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
