"""Vector stores behind one small interface: index chunks, retrieve the top k with scores.

    index = open_index("chroma", "pg-t200o0", embedder, directory=run_dir)
    report = index.add(chunks)          # batched, deduplicated by chunk id, count-checked
    hits = index.search("Why do startups fail?", k=3)
    hits[0].chunk_id, hits[0].score     # score: cosine similarity, higher is closer

Stores (each through its LangChain integration):
    chroma               embedded Chroma, persistent in `directory` (the default)
    chroma://HOST:PORT   a Chroma server (`chroma run --path DIR --port PORT`)
    elasticsearch        kNN over a `dense_vector` field; ES_URL plus ES_API_KEY or
                         ES_USER/ES_PASSWORD from the environment
    pinecone             a serverless index; PINECONE_API_KEY (PINECONE_CLOUD,
                         PINECONE_REGION: default aws/us-east-1) from the environment

Every write checks, before and after: the embedder's dimension matches the
index's, and the index holds exactly as many more vectors as were new.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Iterable
from urllib.parse import urlsplit

from .chunking import Chunk
from .embeddings import Embedder


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

    def _write(self, chunks: list[Chunk]) -> None:
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
            self._write(new[lo : lo + self.batch_size])
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


# -- Chroma -----------------------------------------------------------------------------


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

    def _write(self, chunks: list[Chunk]) -> None:
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


# -- Elasticsearch ----------------------------------------------------------------------

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

    def _write(self, chunks: list[Chunk]) -> None:
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


# -- Pinecone ---------------------------------------------------------------------------


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

    def _write(self, chunks: list[Chunk]) -> None:
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


# -- choosing one -----------------------------------------------------------------------

STORES = ("chroma", "chroma://HOST:PORT", "elasticsearch", "pinecone")


def open_index(store: str, name: str, embedder: Embedder, directory=None) -> VectorIndex:
    """An index by store name (see the module docstring); `directory` is where embedded Chroma persists."""
    if store == "chroma":
        return chroma_index(name, embedder, directory=directory)
    if store.startswith("chroma://"):
        return chroma_index(name, embedder, url=store)
    if store == "elasticsearch":
        return elasticsearch_index(name, embedder)
    if store == "pinecone":
        return pinecone_index(name, embedder)
    raise ValueError(f"unknown vector store {store!r}; use one of {', '.join(STORES)}")


def open_corpus_index(store: str, corpus: str, chunker_name: str, embedder: Embedder, directory=None) -> VectorIndex:
    """The index of one corpus, chunked one way and embedded one way: all three are part of its name,
    so chunks made or embedded differently never share an index."""
    label = "pg" if corpus == "paul_graham" else corpus.rstrip("/").split("/")[-1]
    return open_index(store, index_name(label, chunker_name, embedder.spec), embedder, directory=directory)
