"""The vector-index contract every store implements: batched, deduplicated, count-checked writes; top-k search.

Every write checks, before and after: the embedder's dimension matches the
index's, and the index holds exactly as many more vectors as were new.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Iterable

from ...models.embeddings import Embedder
from ..chunking import Chunk


class IndexStateError(RuntimeError):
    """An index is not in the state a write or a read needs; the message says why."""


class DimensionMismatchError(IndexStateError):
    pass


class StoreNotConfiguredError(RuntimeError):
    """A remote store was asked for without its URL or key in the environment."""


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    doc_id: str
    text: str
    score: float  # cosine similarity of query and chunk
    rank: int  # 1-based


@dataclass(frozen=True)
class AddReport:
    submitted: int  # chunks passed to add()
    duplicates: int  # repeated chunk ids within the submission, written once
    already_indexed: int  # ids the index held before, not written again
    written: int
    count: int  # vectors in the index afterwards
    seconds: float

    @property
    def chunks_per_second(self) -> float:
        return self.written / self.seconds if self.seconds > 0 else float("nan")


def index_name(*parts: str, max_len: int = 45) -> str:
    """A name every store accepts: lower-case letters, digits and dashes, at most 45 characters."""
    name = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")
    if len(name) < 3:
        raise ValueError(f"index name {name!r} from {parts} is too short")
    if len(name) > max_len:
        import hashlib

        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[: max_len - 9].rstrip('-')}-{digest}"
    return name


class VectorIndex:
    """What the experiments use; subclasses supply the store-specific pieces."""

    batch_size = 64
    store_name = "?"

    def __init__(self, name: str, embedder: Embedder):
        self.name, self.embedder = name, embedder
        self._holds_vectors = False  # once true, searches skip asking the store for its count

    # -- store-specific ---------------------------------------------------------------
    def count(self) -> int:
        raise NotImplementedError

    def stored_dimension(self) -> int | None:
        """The index's vector dimension, or None while it is empty or absent."""
        raise NotImplementedError

    def _existing_ids(self, ids: list[str]) -> set[str]:
        raise NotImplementedError

    def write_batch(self, chunks: list[Chunk]) -> None:
        """Store one batch of new chunks with their vectors (each store implements it; `add` checks the count)."""
        raise NotImplementedError

    def _search(self, query: str, k: int) -> list[tuple[dict, str, float]]:
        """(metadata, text, cosine similarity) for the top k."""
        raise NotImplementedError

    def delete(self) -> None:
        raise NotImplementedError

    def _settle(self, expected: int) -> int:
        """The count after a write; stores with eventual consistency wait for it here."""
        return self.count()

    # -- shared -----------------------------------------------------------------------
    def check_dimension(self) -> None:
        stored, wanted = self.stored_dimension(), self.embedder.dimension
        if stored is not None and stored != wanted:
            raise DimensionMismatchError(
                f"{self.store_name} index {self.name!r} holds {stored}-dimensional vectors but "
                f"embedder {self.embedder.spec!r} makes {wanted}-dimensional ones: use another "
                f"index name, or delete the index and rebuild it")

    def add(self, chunks: Iterable[Chunk]) -> AddReport:
        """Write the chunks the index does not hold yet, in batches, and check the result."""
        started = time.perf_counter()
        chunks = list(chunks)
        unique: dict[str, Chunk] = {}
        for c in chunks:
            seen = unique.setdefault(c.chunk_id, c)
            if seen.text != c.text:
                raise ValueError(f"chunk id {c.chunk_id!r} is given twice with different text")
        self.check_dimension()
        before = self.count()
        ids = list(unique)
        existing: set[str] = set()
        for lo in range(0, len(ids), 500):
            existing |= self._existing_ids(ids[lo : lo + 500])
        new = [unique[i] for i in ids if i not in existing]
        for lo in range(0, len(new), self.batch_size):
            self.write_batch(new[lo : lo + self.batch_size])
        after = self._settle(before + len(new)) if new else before
        if after != before + len(new):
            raise IndexStateError(
                f"{self.store_name} index {self.name!r} held {before} vectors, {len(new)} new ones were "
                f"written, but it now holds {after}: the write was partial or the index is shared")
        self._holds_vectors = after > 0
        return AddReport(len(chunks), len(chunks) - len(unique), len(existing), len(new), after,
                         time.perf_counter() - started)

    def search(self, query: str, k: int) -> list[Hit]:
        """The k chunks closest to the query, best first (fewer when the index holds fewer)."""
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        if not query or not query.strip():
            raise ValueError("cannot search with an empty query")
        if not self._holds_vectors:
            self._holds_vectors = self.count() > 0
            if not self._holds_vectors:
                return []
        return [Hit(meta["chunk_id"], meta["doc_id"], text, float(score), rank)
                for rank, (meta, text, score) in enumerate(self._search(query, k), start=1)]
