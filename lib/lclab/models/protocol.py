"""What a backend is: one request to one model, nothing else.

Three backends implement it: llama.cpp in-process (`llama.LocalBackend`), any
OpenAI-compatible HTTP endpoint (`remote.OpenAIBackend`) and a transformers
model directory (`hf.HFBackend`). A backend adds no cache, no retries and no
accounting (the gateway adds those). It raises RetryableError for transient
failures and FatalError, saying what to do, for the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Settings:
    """Everything that changes a reply. Timeouts and retry counts deliberately live elsewhere."""

    temperature: float = 0.0
    max_tokens: int = 256
    response_format: str | dict | None = None  # None, "json", or a JSON schema dict
    logprobs: bool = False
    top_logprobs: int = 0
    seed: int = 0


@dataclass(frozen=True)
class RawReply:
    text: str
    logprobs: list[dict] | None  # [{"token", "logprob", "top": [[token, logprob], ...]}]
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    endpoint: str | None = None  # which replica answered (served models), for the per-replica accounting
    # Of the prompt, the tokens an embedded model held from the call before it (a shared prefix in its KV cache):
    # not read again. None where the backend does not say. What a run's measured speed is set against (accounting).
    kept_prompt_tokens: int | None = None


class Backend(Protocol):
    """The methods the gateway calls. `identity` goes into every cache key."""

    identity: dict  # what decides a reply: the weights' sha256, or the base URL and served model name
    tokenizer_name: str  # which tokenizer count_tokens uses, for the notebooks to say

    def count_tokens(self, text: str) -> int:
        """Tokens of a bare text under the model's tokenizer."""

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """Tokens of a chat prompt as the model reads it (template included where known)."""

    def context_window(self) -> int | None:
        """How many tokens prompt and reply may hold together (None where the endpoint does not say)."""

    def complete(self, messages: list[dict], settings: Settings, timeout: float) -> RawReply:
        """One chat completion."""

    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        """One raw-text continuation (no chat template)."""


def normalize_logprobs(content) -> list[dict]:
    """OpenAI-shaped per-token logprobs (objects or dicts) into plain dicts."""
    def get(obj, name):
        return obj[name] if isinstance(obj, dict) else getattr(obj, name)

    return [
        {
            "token": get(item, "token"),
            "logprob": float(get(item, "logprob")),
            "top": [[get(t, "token"), float(get(t, "logprob"))] for t in (get(item, "top_logprobs") or [])],
        }
        for item in content
    ]


def chat_kwargs(messages: list[dict], settings: Settings, schema_format) -> dict:
    """Chat-completion arguments shared by the llama.cpp and OpenAI backends; `schema_format`
    maps a JSON schema to the backend's own response_format dialect."""
    kwargs = dict(messages=messages, temperature=settings.temperature,
                  max_tokens=settings.max_tokens, seed=settings.seed)
    if settings.response_format == "json":
        kwargs["response_format"] = {"type": "json_object"}
    elif isinstance(settings.response_format, dict):
        kwargs["response_format"] = schema_format(settings.response_format)
    if settings.logprobs:
        kwargs.update(logprobs=True, top_logprobs=settings.top_logprobs)
    return kwargs
