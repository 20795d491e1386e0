"""The only door to a model. Everything else in lclab calls a model through here.

    from lclab.models import complete
    reply = complete("local/qwen2.5-coder-0.5b", "What is 2+2?", stage="answer", request=Request(max_tokens=8))

What lives behind the door, one module each:

    gateway.py       complete(): cache, retries, structured output, accounting around one backend call
    request.py       Request: what one call asks besides its prompt, and the cache key it makes
    protocol.py      the Backend protocol every backend implements (Settings in, RawReply out)
    llama.py         llama.cpp in-process (the embedded models, any GGUF file); its settings in
                     llama_engine.py, its logits read in llama_logits.py
    remote.py        any OpenAI-compatible endpoint
    hf.py            a transformers model directory
    specs.py         model spec strings -> which backend, which endpoint
    local_models.py  the embedded models assembled from their PyPI parts, checked by sha256
    cache.py         the on-disk cache of replies
    retry.py         bounded retries with backoff that honours Retry-After
    accounting.py    the one ledger of calls, tokens and time, with scopes
    errors.py        what a call can end in
    jsonparse.py     the tolerant JSON reader for model replies
    embeddings.py    text embeddings, cached the same way
    fault_server.py  a misbehaving OpenAI-compatible server, for tests and benchmarks only
    fake.py          a deterministic fake model (`fake/NAME`), for the tests of plumbing only

Change these with care: every experiment stands on them, and the cache key
(`gateway.complete`) must not change meaning, or every cached reply is lost.
"""

from .accounting import ACCOUNTING, Accounting
from .errors import (
    ContextLengthError,
    FatalError,
    LLMError,
    LogprobsUnavailableError,
    MissingAPIKeyError,
    ParseError,
    RetryableError,
)
from .backends import (
    backend_for,
    budget_counters,
    chat_text,
    check_budget,
    context_window,
    count_prompt_tokens,
    count_tokens,
    reset_backend_registry,
    tokenizer_name,
)
from .gateway import Completion, cached, complete, prompt_sha256
from .request import Request
from .windows import within_window

__all__ = [
    "ACCOUNTING", "Accounting", "Completion", "ContextLengthError", "FatalError", "LLMError",
    "LogprobsUnavailableError", "MissingAPIKeyError", "ParseError", "Request", "RetryableError", "backend_for",
    "budget_counters", "cached", "chat_text", "check_budget", "complete", "context_window", "count_prompt_tokens",
    "count_tokens", "prompt_sha256", "reset_backend_registry", "tokenizer_name", "within_window",
]
