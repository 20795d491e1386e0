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

from ...models.embeddings import Embedder
from .base import (
    AddReport,
    DimensionMismatchError,
    Hit,
    IndexStateError,
    StoreNotConfiguredError,
    VectorIndex,
    index_name,
)

STORES = ("chroma", "chroma://HOST:PORT", "elasticsearch", "pinecone")


def open_index(store: str, name: str, embedder: Embedder, directory=None) -> VectorIndex:
    """An index by store name (see the module docstring); `directory` is where embedded Chroma persists."""
    if store == "chroma":
        from .chroma import chroma_index

        return chroma_index(name, embedder, directory=directory)
    if store.startswith("chroma://"):
        from .chroma import chroma_index

        return chroma_index(name, embedder, url=store)
    if store == "elasticsearch":
        from .elasticsearch import elasticsearch_index

        return elasticsearch_index(name, embedder)
    if store == "pinecone":
        from .pinecone import pinecone_index

        return pinecone_index(name, embedder)
    raise ValueError(f"unknown vector store {store!r}; use one of {', '.join(STORES)}")


def open_corpus_index(store: str, corpus: str, chunker_name: str, embedder: Embedder, directory=None,
                      subset: str = "") -> VectorIndex:
    """The index of one corpus, chunked one way and embedded one way: all three are part of its name,
    so chunks made or embedded differently never share an index. A `subset` of the corpus's documents (a label
    naming which) gets an index of its own: searched in the whole corpus's, it would find the other documents."""
    label = "pg" if corpus == "paul_graham" else corpus.rstrip("/").split("/")[-1]
    parts = (label, subset, chunker_name, embedder.spec) if subset else (label, chunker_name, embedder.spec)
    return open_index(store, index_name(*parts), embedder, directory=directory)
