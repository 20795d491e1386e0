"""Counting a served model's tokens exactly, with the server's own tokenizer.

A context budget counted with the wrong tokenizer either overflows the window or
leaves it underfilled, so a served model is counted, in order of preference, by

    llama.cpp's server      POST /apply-template (the chat template), then POST /tokenize
    vLLM                    POST /tokenize with the messages (the chat template included)
    a tokenizer directory   LCLAB_TOKENIZER_DIR: a transformers tokenizer with its chat template, offline
    tiktoken cl100k_base    the last resort, labelled approximate

The window a server was started with is read the same way (llama.cpp: /props,
vLLM: /v1/models), so a budget it cannot hold is refused before any call.

A server's counts are kept on disk (`token_counts/` in the model cache, one file per server and model, keyed by
a hash of the text), so a rerun builds its samples without a single /tokenize round trip: filling 09's budgets
counted 3,063 texts again on a warm rerun. A server that changes its tokenizer under the same URL and name
would be counted with the old one: give it another name, or clear that folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from functools import cached_property
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx

from ..recoveries import appending
from .json_posts import JsonPoster, can_post_plainly

# How the stored counts are keyed (_stored_key); a store keyed another way is left alone, and its texts counted again.
KEY_VERSION = "k2"


class ServedTokenizer:
    """The token counter of one served model (the first replica answers for all: replicas are one model)."""

    def __init__(self, base_url: str, public_url: str, model: str, api_key: str | None, fallback):
        parts = urlsplit(base_url)  # a query string (an api-version, a key) goes on every request, not the path
        self.root = urlunsplit(parts._replace(query="")).rstrip("/").removesuffix("/v1")
        self.query = dict(parse_qsl(parts.query))
        self.public_root = public_url.rstrip("/").removesuffix("/v1")
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._fallback = fallback  # (name, tiktoken encoding), or what makes it
        self._lock = threading.Lock()
        self._writing = threading.Lock()  # held by the one thread appending kept counts to the store
        self._unwritten: list[str] = []

    @cached_property
    def fallback(self) -> tuple:
        """(name, tiktoken encoding): what counts where the server cannot. Made at first use: loading the encoding
        took 0.6 s of a cold run that counts every prompt on its server."""
        return self._fallback() if callable(self._fallback) else self._fallback

    @cached_property
    def _store_path(self) -> Path:
        from ..paths import llm_cache_dir

        return llm_cache_dir() / "token_counts" / f"{self._server_id}-{self.dialect}-{KEY_VERSION}.jsonl"

    @cached_property
    def _kept(self) -> dict[str, int]:
        """Counts made before, by any run (a damaged line, from a kill mid-write, is skipped and counted again)."""
        kept = {}
        if self._store_path.exists():
            for line in self._store_path.read_text(encoding="utf-8").splitlines():
                try:
                    key, n = json.loads(line)
                    kept[key] = int(n)
                except (ValueError, TypeError):
                    continue
        return kept

    def _remembered(self, kind: str, content, count) -> int | None:
        """`count()` of `content`, from the disk store when this server counted it before; exact counts are kept."""
        if self.dialect == "tiktoken":  # nothing to save: counted locally
            return count()
        key = _stored_key(kind, content)
        if key in self._kept:
            return self._kept[key]
        n = count()
        if n is not None:
            with self._lock:
                self._kept[key] = n
                self._unwritten.append(json.dumps([key, n]) + "\n")
            self._write_kept()
        return n

    def _write_kept(self) -> None:
        """The counts not on disk yet, appended by one thread at a time. Each append locks the shared file and
        checks its last line (~0.7 ms): one per count, under the lock, made 64 threads filling 09's budgets
        wait on each other for 1.9 of their 2.4 s. Now the thread that writes takes every count made meanwhile;
        one that finds another writing leaves its count to it (the writer looks again before it lets go)."""
        while self._writing.acquire(blocking=False):
            try:
                while True:
                    with self._lock:
                        lines, self._unwritten = self._unwritten, []
                    if not lines:
                        break
                    try:
                        with appending(self._store_path) as fh:  # shared by processes: locked, its cut line repaired
                            fh.write("".join(lines))
                    except OSError:  # kept for the next write (they are in memory meanwhile); the writer is told
                        with self._lock:
                            self._unwritten[:0] = lines
                        raise
            finally:
                self._writing.release()
            with self._lock:  # a count kept between the last look and the release: written by this thread too
                if not self._unwritten:
                    return

    @cached_property
    def _http(self) -> httpx.Client:
        # One pooled client: a new connection per count (TCP set-up, and TLS on a remote server) cost more
        # than the count itself when a budget is searched with several counts.
        return httpx.Client(headers=self.headers, params=self.query, timeout=30)

    @cached_property
    def _poster(self) -> JsonPoster | None:
        """The standard library's connections where they serve (plain HTTP, no proxy): a count's client-side cost
        is most of it against a fast server (json_posts.py); None: httpx."""
        return JsonPoster(self.root, self.headers, self.query) if can_post_plainly(self.root) else None

    def _post(self, path: str, body: dict) -> dict | None:
        if self._poster is not None:
            try:
                status, reply = self._poster.post(path, body)
            except OSError:
                return None
            return reply if status == 200 and isinstance(reply, dict) else None
        try:
            reply = self._http.post(self.root + path, json=body)
        except httpx.HTTPError:
            return None
        try:
            return reply.json() if reply.status_code == 200 else None
        except ValueError:
            return None

    @cached_property
    def _server_id(self) -> str:
        return hashlib.sha256(f"{self.public_root}|{self.model}".encode()).hexdigest()[:16]

    @cached_property
    def dialect(self) -> str:
        """Which way this server counts, asked once per server and kept beside its counts (an exact one only)."""
        from ..paths import llm_cache_dir

        if os.environ.get("LCLAB_TOKENIZER_DIR"):
            return "transformers"
        known = llm_cache_dir() / "token_counts" / f"{self._server_id}.dialect"
        if known.exists() and known.read_text().strip() in ("llama.cpp", "vllm"):
            return known.read_text().strip()
        probe = [{"role": "user", "content": "x"}]
        if isinstance((self._post("/apply-template", {"messages": probe}) or {}).get("prompt"), str):
            found = "llama.cpp"
        elif "count" in (self._post("/tokenize", {"model": self.model, "messages": probe}) or {}):
            found = "vllm"
        else:
            return "tiktoken"
        known.parent.mkdir(parents=True, exist_ok=True)
        known.write_text(found)
        return found

    @cached_property
    def name(self) -> str:
        return {"llama.cpp": f"the server's own tokenizer (llama.cpp /apply-template + /tokenize at {self.public_root})",
                "vllm": f"the server's own tokenizer (vLLM /tokenize at {self.public_root})",
                "transformers": f"transformers tokenizer of {os.environ.get('LCLAB_TOKENIZER_DIR')}",
                "tiktoken": self.fallback[0]}[self.dialect]

    @cached_property
    def _transformers(self):
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(os.environ["LCLAB_TOKENIZER_DIR"], local_files_only=True)

    def count_text(self, text: str) -> int:
        """Tokens of a bare text (no special tokens added)."""
        return self._remembered("text", text, lambda: self._count_text(text))

    def _count_text(self, text: str) -> int:
        if self.dialect == "llama.cpp":
            return len(self._require("/tokenize", {"content": text, "add_special": False,
                                                   "parse_special": False})["tokens"])
        if self.dialect == "vllm":
            return int(self._require("/tokenize", {"model": self.model, "prompt": text,
                                                   "add_special_tokens": False})["count"])
        if self.dialect == "transformers":
            return len(self._transformers(text, add_special_tokens=False)["input_ids"])
        return len(self.fallback[1].encode(text, disallowed_special=()))

    def count_prompt(self, messages: list[dict]) -> int | None:
        """Tokens of a chat prompt as the server reads it; None where only an approximation is possible.

        A round trip for a served model, so every exact count is kept (`_remembered`: in memory and on disk): filling
        budgets counts the same short prompts (a task's question with no haystack yet) for every length and depth."""
        return self._remembered("prompt", messages, lambda: self._count_prompt(messages))

    def _count_prompt(self, messages: list[dict]) -> int | None:
        if self.dialect == "llama.cpp":
            prompt = self._require("/apply-template", {"messages": messages})["prompt"]
            return len(self._require("/tokenize", {"content": prompt})["tokens"])
        if self.dialect == "vllm":
            return int(self._require("/tokenize", {"model": self.model, "messages": messages,
                                                   "add_generation_prompt": True})["count"])
        if self.dialect == "transformers":
            return len(self._transformers.apply_chat_template(messages, add_generation_prompt=True, tokenize=True))
        return None

    def chat_text(self, messages: list[dict]) -> str | None:
        """The chat prompt as the server's template renders it, where the server has a route for it (llama.cpp's
        /apply-template) or the lab its tokenizer; None otherwise (vLLM renders it only inside a request)."""
        if self.dialect == "llama.cpp":
            return self._require("/apply-template", {"messages": messages})["prompt"]
        if self.dialect == "transformers":
            return self._transformers.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return None

    def _require(self, path: str, body: dict) -> dict:
        reply = self._post(path, body)
        if reply is None:
            raise RuntimeError(f"{self.public_root}{path} stopped answering; cannot count tokens exactly")
        return reply

    @cached_property
    def window(self) -> int | None:
        """The context window the server was started with, where it says (None otherwise)."""
        try:
            if self.dialect == "llama.cpp":
                props = self._http.get(self.root + "/props").json()
                settings = props.get("default_generation_settings", {})
                return int(settings.get("n_ctx") or props.get("n_ctx"))
            if self.dialect == "vllm":
                models = self._http.get(self.root + "/v1/models").json()["data"]
                return int(models[0]["max_model_len"])
        except (httpx.HTTPError, KeyError, TypeError, ValueError, IndexError):
            return None
        return None


def _stored_key(kind: str, content) -> str:
    """What a count is kept under on disk: a hash of what was counted and how ("text" or "prompt").

    Each text is hashed as it is, behind its length (so no two different contents hash alike), not as JSON:
    escaping a 30 kB prompt into JSON cost three times its hash, three times per sample built."""
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list) and all(isinstance(m, dict) and set(m) == {"role", "content"}
                                           and isinstance(m["content"], str) for m in content):
        parts = [text for m in content for text in (m["role"], m["content"])]
    else:  # any other shape: its canonical JSON
        parts = [json.dumps(content, sort_keys=True, ensure_ascii=False)]
    digest = hashlib.sha256(f"{KEY_VERSION}|{kind}|{len(parts)}".encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(f"|{len(data)}|".encode())
        digest.update(data)
    return digest.hexdigest()
