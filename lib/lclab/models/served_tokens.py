"""Counting a served model's tokens exactly, with the server's own tokenizer.

A context budget counted with the wrong tokenizer either overflows the window or
leaves it underfilled, so a served model is counted, in order of preference, by

    llama.cpp's server      POST /apply-template (the chat template), then POST /tokenize
    vLLM                    POST /tokenize with the messages (the chat template included)
    a tokenizer directory   LCLAB_TOKENIZER_DIR: a transformers tokenizer with its chat template, offline
    tiktoken cl100k_base    the last resort, labelled approximate

The window a server was started with is read the same way (llama.cpp: /props,
vLLM: /v1/models), so a budget it cannot hold is refused before any call.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cached_property
from urllib.parse import parse_qsl, urlsplit, urlunsplit

import httpx


class ServedTokenizer:
    """The token counter of one served model (the first replica answers for all: replicas are one model)."""

    def __init__(self, base_url: str, public_url: str, model: str, api_key: str | None, fallback):
        parts = urlsplit(base_url)  # a query string (an api-version, a key) goes on every request, not the path
        self.root = urlunsplit(parts._replace(query="")).rstrip("/").removesuffix("/v1")
        self.query = dict(parse_qsl(parts.query))
        self.public_root = public_url.rstrip("/").removesuffix("/v1")
        self.model = model
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.fallback = fallback  # (name, tiktoken encoding)
        self._counted: dict[str, int | None] = {}

    @cached_property
    def _http(self) -> httpx.Client:
        # One pooled client: a new connection per count (TCP set-up, and TLS on a remote server) cost more
        # than the count itself when a budget is searched with several counts.
        return httpx.Client(headers=self.headers, params=self.query, timeout=30)

    def _post(self, path: str, body: dict) -> dict | None:
        try:
            reply = self._http.post(self.root + path, json=body)
        except httpx.HTTPError:
            return None
        return reply.json() if reply.status_code == 200 else None

    @cached_property
    def dialect(self) -> str:
        probe = [{"role": "user", "content": "x"}]
        if os.environ.get("LCLAB_TOKENIZER_DIR"):
            return "transformers"
        if isinstance((self._post("/apply-template", {"messages": probe}) or {}).get("prompt"), str):
            return "llama.cpp"
        if "count" in (self._post("/tokenize", {"model": self.model, "messages": probe}) or {}):
            return "vllm"
        return "tiktoken"

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

        A round trip for a served model, so the last counts are remembered: filling budgets counts the same
        short prompts (a task's question with no haystack yet) for every length and depth."""
        key = hashlib.sha1(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()  # not the prompt
        if key not in self._counted:
            if len(self._counted) >= 256:
                self._counted.pop(next(iter(self._counted)))
            self._counted[key] = self._count_prompt(messages)
        return self._counted[key]

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
