"""What one model call asks besides its prompt, as one value: the run passes it to `complete`, a plan passes the
same object to `cached`, so the two cannot disagree on a cache key.

    JUDGE = Request(max_tokens=32, response_format="json", logprobs=True, top_logprobs=5)
    complete(judge_model, prompt, stage="judge", request=JUDGE)
    cached(judge_model, prompt, JUDGE)          # the plan's lookup of the very same call

The fields above `validate` change the reply and make the cache key; `validate`, `timeout` and `retry` decide
what is accepted and how patiently it is asked, and are left out of the key (as inspect_ai's cache leaves out
timeouts and retries).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from .protocol import Settings
from .retry import RetryPolicy

Messages = list[dict[str, str]]
# A validator gets the parsed JSON (or the text, when no JSON was asked for) and
# returns None when the reply is acceptable, or a sentence saying what is wrong.
Validator = Callable[[Any], str | None]


@dataclass(frozen=True)
class Request:
    """One call's request besides its prompt.

    Args:
        max_tokens: the reply's budget.
        system: a system message put before the prompt (chat requests only).
        response_format: "json" for any JSON object, or a JSON schema dict.
        logprobs, top_logprobs: return per-token logprobs with that many alternatives.
        sample: which sample this is when temperature > 0 (each is cached separately).
        cache_tag: keeps otherwise identical requests apart in the cache, for a timed configuration that must
            make its own calls (e.g. "concurrency=4").
        text_completion: send the prompt (a string) as raw text to continue, with no chat template and no system
            message (the /completions endpoint remotely).
        validate: an extra check on the reply; a failure counts like a parse failure. Not in the cache key.
        timeout, retry: how long to wait and how often to retry. Not in the cache key.
    """

    max_tokens: int = 256
    system: str | None = None
    temperature: float = 0.0
    response_format: str | dict | None = None
    logprobs: bool = False
    top_logprobs: int = 0
    seed: int = 0
    sample: int = 0
    cache_tag: str | None = None
    text_completion: bool = False
    validate: Validator | None = field(default=None, compare=False, repr=False)
    timeout: float = field(default=300.0, compare=False)
    retry: RetryPolicy = field(default=RetryPolicy(), compare=False)

    def __post_init__(self):
        if self.text_completion and (self.system or self.response_format or self.logprobs):
            raise ValueError("text_completion takes a plain string prompt, without system message, "
                             "response_format or logprobs")

    @property
    def settings(self) -> Settings:
        """What the backend is sent besides the messages."""
        return Settings(self.temperature, self.max_tokens, self.response_format, self.logprobs,
                        self.top_logprobs, self.seed)

    @property
    def reply_extras(self) -> tuple[bool, bool]:
        """(decoded under a JSON grammar, logprobs read after the reply): what each reply token costs an embedded
        model besides decoding it. A one-token reply with logprobs is read from the prompt's last logits, with
        neither cost (lclab.models.llama)."""
        one_token = self.max_tokens == 1 and self.logprobs
        return bool(self.response_format) and not one_token, self.logprobs and not one_token

    def but(self, **changes) -> "Request":
        """This request with some fields changed (a sample index, another budget)."""
        return dataclasses.replace(self, **changes)

    def cache_key(self, identity: dict, messages: Messages) -> dict:
        """What a reply is cached under: the meaning of the request, never its timeouts or retries. The layout is
        the one replies have been cached under all along (a warm cache from before `Request` still hits)."""
        key = {
            "backend": identity,
            "messages": messages,
            "settings": self.settings.__dict__,
            # Greedy decoding is deterministic: only sampled requests differ by sample index.
            "sample": self.sample if self.temperature > 0 else 0,
        }
        if self.cache_tag:
            key["tag"] = self.cache_tag  # absent otherwise, so untagged keys never change
        if self.text_completion:
            key["mode"] = "text"  # likewise absent for chat requests
        return key

    def keyed(self) -> dict:
        """The fields that make the cache key, as a plain dict (a plan's record of what it priced)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.compare}
