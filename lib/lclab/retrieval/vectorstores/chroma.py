"""Chroma, embedded (persistent in a folder) or client-server (chroma://HOST:PORT)."""

from __future__ import annotations

from urllib.parse import urlsplit

from ...models.embeddings import Embedder
from ..chunking import Chunk
from .base import StoreNotConfiguredError, VectorIndex


class ChromaIndex(VectorIndex):
    store_name = "Chroma"

    def __init__(self, name: str, embedder: Embedder, client, where: str):
        super().__init__(name, embedder)
        from langchain_chroma import Chroma

        self.where = where
        self.client = client
        # Cosine space, and no Chroma embedding function: its default downloads an
        # ONNX model at run time. Vectors always come from our embedder.
        self.collection = client.get_or_create_collection(
            name, metadata={"hnsw:space": "cosine"}, embedding_function=None)
        self.store = Chroma(client=client, collection_name=name, embedding_function=embedder.as_langchain())

    def count(self) -> int:
        return self.collection.count()

    def stored_dimension(self) -> int | None:
        got = self.collection.get(limit=1, include=["embeddings"])
        embeddings = got.get("embeddings")
        return None if embeddings is None or len(embeddings) == 0 else len(embeddings[0])

    def _existing_ids(self, ids: list[str]) -> set[str]:
        return set(self.collection.get(ids=ids, include=[])["ids"])

    def write_batch(self, chunks: list[Chunk]) -> None:
        self.store.add_texts([c.text for c in chunks], metadatas=[c.metadata for c in chunks],
                             ids=[c.chunk_id for c in chunks])

    def _search(self, query: str, k: int):
        found = self.store.similarity_search_with_score(query, k=k)
        return [(doc.metadata, doc.page_content, 1.0 - distance) for doc, distance in found]

    def delete(self) -> None:
        self.client.delete_collection(self.name)


def _chroma_settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False)  # no phoning home from an offline lab


def chroma_index(name: str, embedder: Embedder, directory=None, url: str | None = None) -> ChromaIndex:
    """Embedded (persistent in `directory`) or, with url "chroma://host:port", client-server Chroma."""
    import chromadb

    if url:
        parts = urlsplit(url)
        if not parts.hostname or not parts.port:
            raise ValueError(f"Chroma server address {url!r} must look like chroma://HOST:PORT")
        try:  # the client connects as it is made
            client = chromadb.HttpClient(host=parts.hostname, port=parts.port, settings=_chroma_settings())
            client.heartbeat()
        except Exception as err:  # noqa: BLE001  (re-raised with what to do)
            raise StoreNotConfiguredError(
                f"no Chroma server answers at {parts.hostname}:{parts.port} ({err}); start one with "
                f"`chroma run --path DIR --host {parts.hostname} --port {parts.port}`") from err
        return ChromaIndex(name, embedder, client, f"{parts.hostname}:{parts.port}")
    if directory is None:
        raise ValueError("embedded Chroma needs a directory to persist in")
    client = chromadb.PersistentClient(path=str(directory), settings=_chroma_settings())
    return ChromaIndex(name, embedder, client, str(directory))
