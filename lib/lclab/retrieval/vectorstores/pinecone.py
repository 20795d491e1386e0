"""A serverless Pinecone index (cosine); PINECONE_API_KEY from the environment."""

from __future__ import annotations

import os
import time

from ...models.embeddings import Embedder
from ..chunking import Chunk
from .base import StoreNotConfiguredError, VectorIndex


class PineconeIndex(VectorIndex):
    """A serverless Pinecone index (cosine), through langchain-pinecone."""

    store_name = "Pinecone"
    batch_size = 100
    settle_timeout = 60.0  # Pinecone's counts catch up with writes within seconds

    def __init__(self, name: str, embedder: Embedder, client, cloud: str, region: str):
        super().__init__(name, embedder)
        from langchain_pinecone import PineconeVectorStore
        from pinecone import ServerlessSpec

        self.client = client
        if not client.has_index(name):
            client.create_index(name=name, dimension=embedder.dimension, metric="cosine",
                                spec=ServerlessSpec(cloud=cloud, region=region))
        self._dimension = int(client.describe_index(name).dimension)
        self.index = client.Index(name)
        self.store = PineconeVectorStore(index=self.index, embedding=embedder.as_langchain(), text_key="text")

    def count(self) -> int:
        return int(self.index.describe_index_stats().total_vector_count)

    def stored_dimension(self) -> int | None:
        return self._dimension

    def _existing_ids(self, ids: list[str]) -> set[str]:
        found = set()
        for lo in range(0, len(ids), 100):  # fetch takes at most 100 ids
            found |= set(self.index.fetch(ids=ids[lo : lo + 100]).vectors)
        return found

    def write_batch(self, chunks: list[Chunk]) -> None:
        self.store.add_texts([c.text for c in chunks], metadatas=[c.metadata for c in chunks],
                             ids=[c.chunk_id for c in chunks], batch_size=self.batch_size)

    def _settle(self, expected: int) -> int:
        deadline = time.monotonic() + self.settle_timeout
        while (count := self.count()) < expected and time.monotonic() < deadline:
            time.sleep(2)
        return count

    def _search(self, query: str, k: int):
        found = self.store.similarity_search_with_score(query, k=k)
        return [(doc.metadata, doc.page_content, score) for doc, score in found]

    def delete(self) -> None:
        self.client.delete_index(self.name)


def pinecone_index(name: str, embedder: Embedder) -> PineconeIndex:
    key = os.environ.get("PINECONE_API_KEY")
    if not key:
        raise StoreNotConfiguredError(
            "Pinecone is not configured: export PINECONE_API_KEY=... (and PINECONE_CLOUD / "
            "PINECONE_REGION if not aws / us-east-1)")
    from pinecone import Pinecone

    return PineconeIndex(name, embedder, Pinecone(api_key=key), os.environ.get("PINECONE_CLOUD", "aws"),
                         os.environ.get("PINECONE_REGION", "us-east-1"))
