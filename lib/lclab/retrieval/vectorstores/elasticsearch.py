"""Elasticsearch 8.x+: kNN over a dense_vector field (cosine); ES_URL and a key from the environment."""

from __future__ import annotations

import os

from ...models.embeddings import Embedder
from ..chunking import Chunk
from .base import StoreNotConfiguredError, VectorIndex

ES_VECTOR_FIELD = "vector"


class ElasticsearchIndex(VectorIndex):
    """kNN search over a dense_vector field (cosine), through langchain-elasticsearch."""

    store_name = "Elasticsearch"
    batch_size = 200

    def __init__(self, name: str, embedder: Embedder, client):
        super().__init__(name, embedder)
        from langchain_elasticsearch import DenseVectorStrategy, ElasticsearchStore

        self.client = client
        self.store = ElasticsearchStore(
            index_name=name, embedding=embedder.as_langchain(), client=client,
            vector_query_field=ES_VECTOR_FIELD, strategy=DenseVectorStrategy())

    def _exists(self) -> bool:
        return bool(self.client.indices.exists(index=self.name))

    def count(self) -> int:
        if not self._exists():
            return 0
        self.client.indices.refresh(index=self.name)
        return int(self.client.count(index=self.name)["count"])

    def stored_dimension(self) -> int | None:
        if not self._exists():
            return None
        mapping = self.client.indices.get_mapping(index=self.name)[self.name]["mappings"]
        field = mapping.get("properties", {}).get(ES_VECTOR_FIELD, {})
        return field.get("dims")

    def _existing_ids(self, ids: list[str]) -> set[str]:
        if not self._exists():
            return set()
        docs = self.client.mget(index=self.name, ids=ids, source=False)["docs"]
        return {d["_id"] for d in docs if d.get("found")}

    def write_batch(self, chunks: list[Chunk]) -> None:
        self.store.add_texts([c.text for c in chunks], metadatas=[c.metadata for c in chunks],
                             ids=[c.chunk_id for c in chunks], refresh_indices=True)

    def _search(self, query: str, k: int):
        found = self.store.similarity_search_with_score(query, k=k)
        # Elasticsearch scores cosine kNN hits as (1 + cosine) / 2.
        return [(doc.metadata, doc.page_content, 2.0 * score - 1.0) for doc, score in found]

    def delete(self) -> None:
        self.client.indices.delete(index=self.name, ignore_unavailable=True)


def elasticsearch_index(name: str, embedder: Embedder) -> ElasticsearchIndex:
    url = os.environ.get("ES_URL") or os.environ.get("ELASTICSEARCH_URL")
    if not url:
        raise StoreNotConfiguredError(
            "Elasticsearch is not configured: export ES_URL=https://HOST:9200 and either ES_API_KEY "
            "or ES_USER and ES_PASSWORD (8.x or later, with dense_vector kNN)")
    from elasticsearch import Elasticsearch

    auth = {}
    if os.environ.get("ES_API_KEY"):
        auth["api_key"] = os.environ["ES_API_KEY"]
    elif os.environ.get("ES_USER"):
        auth["basic_auth"] = (os.environ["ES_USER"], os.environ.get("ES_PASSWORD", ""))
    client = Elasticsearch(url, request_timeout=60, **auth)
    return ElasticsearchIndex(name, embedder, client)
