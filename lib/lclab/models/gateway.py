"""The only place that calls a model.

    from lclab.models import complete
    reply = complete("local/qwen2.5-coder-0.5b", "What is 2+2?", stage="answer", max_tokens=8)
    reply.text, reply.prompt_tokens, reply.cached

`complete` adds to a backend call: the disk cache (a warm rerun makes no call), bounded retries for transient
failures, per-stage accounting, a reply kept to a size its budget allows (reply_limits.py), and structured output
(JSON mode or a schema, a tolerant parser, one repair round, then an explicit ParseError, never a silent default).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any, Callable

from ..paths import llm_cache_dir
from ..prompts import render
from .accounting import ACCOUNTING
from .cache import DiskCache, request_key
from .errors import LLMError, LogprobsUnavailableError, ParseError
from .jsonparse import JSONParseError, parse_json_object
from .backends import as_messages, backend_for
from .protocol import Backend, Settings
from .replay import record_failure, refuse_call, replay_failure, replaying
from .reply_limits import bounded
from .retry import RetryPolicy, call_with_retries

Messages = list[dict[str, str]]
# A validator gets the parsed JSON (or the text, when no JSON was asked for) and
# returns None when the reply is acceptable, or a sentence saying what is wrong.
Validator = Callable[[Any], str | None]


@dataclass(frozen=True)
class Completion:
    text: str
    json: dict | None  # parsed reply when response_format was given
    logprobs: list[dict] | None  # per generated token: {"token", "logprob", "top": [[token, logprob], ...]}
    prompt_tokens: int
    completion_tokens: int
    latency_s: float  # of this call; 0 for a cache hit
    cached: bool
    finish_reason: str | None
    model: str
    # Latency of the call that produced this reply, kept in the cache, so the cost
    # side of an experiment reads the same on a warm rerun (None in old entries).
    call_latency_s: float | None = None
    prompt_sha256: str | None = None  # of the exact prompt sent (see prompt_sha256())
    note: str | None = None  # what the gateway did to the reply ("reply truncated at N characters"), else None


def prompt_sha256(prompt: "str | Messages") -> str:
    """A short hash of a prompt exactly as sent: the chat messages (system message included), or the raw text
    of a text completion. Item rows record it, so a rebuilt prompt can be checked against the one asked."""
    canonical = prompt if isinstance(prompt, str) else json.dumps(prompt, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# What a cached reply holds (plus call_latency_s and note, absent in entries older than them).
CACHED_FIELDS = ("text", "json", "logprobs", "prompt_tokens", "completion_tokens", "finish_reason")

def _cache_key(backend: Backend, messages: Messages, settings: Settings, sample: int, cache_tag: str | None,
               text_completion: bool) -> dict:
    """What a reply is cached under: the meaning of the request, never its timeouts or retries."""
    request = {
        "backend": backend.identity,
        "messages": messages,
        "settings": settings.__dict__,
        # Greedy decoding is deterministic: only sampled requests differ by sample index.
        "sample": sample if settings.temperature > 0 else 0,
    }
    if cache_tag:
        request["tag"] = cache_tag  # absent otherwise, so untagged keys never change
    if text_completion:
        request["mode"] = "text"  # likewise absent for chat requests
    return request


def cached(model: str, prompt: str | Messages, *, system: str | None = None, temperature: float = 0.0,
           max_tokens: int = 256, response_format: str | dict | None = None, logprobs: bool = False,
           top_logprobs: int = 0, seed: int = 0, sample: int = 0, cache_tag: str | None = None,
           text_completion: bool = False) -> dict | None:
    """The cached reply `complete` would return for this request, or None, without calling anything (plans)."""
    settings = Settings(temperature, max_tokens, response_format, logprobs, top_logprobs, seed)
    key = _cache_key(backend_for(model), as_messages(prompt, system), settings, sample, cache_tag, text_completion)
    return DiskCache(llm_cache_dir(), required=CACHED_FIELDS).get(key)


def _check(text: str, settings: Settings, validate: Validator | None) -> tuple[dict | None, str | None]:
    """Parse and validate a reply: (parsed JSON or None, problem or None)."""
    parsed = None
    if settings.response_format is not None:
        try:
            parsed = parse_json_object(text)
        except JSONParseError as err:
            return None, str(err)
    if validate is not None:
        problem = validate(parsed if parsed is not None else text)
        if problem:
            return parsed, problem
    return parsed, None


@dataclass(frozen=True)
class _Ask:
    """One request as the gateway makes it: what is sent, to whom, and how patiently."""
    model: str
    stage: str
    backend: Backend
    prompt: str | Messages  # as given (a text completion sends it raw)
    messages: Messages
    settings: Settings
    text_completion: bool
    timeout: float
    retry: RetryPolicy


def complete(
    model: str,
    prompt: str | Messages,
    *,
    stage: str,
    system: str | None = None,
    temperature: float = 0.0,
    max_tokens: int = 256,
    response_format: str | dict | None = None,
    logprobs: bool = False,
    top_logprobs: int = 0,
    seed: int = 0,
    sample: int = 0,
    validate: Validator | None = None,
    cache_tag: str | None = None,
    text_completion: bool = False,
    timeout: float = 300.0,
    retry: RetryPolicy = RetryPolicy(),
) -> Completion:
    """Ask `model` (a spec string) for one reply.

    Args:
        prompt: a user message, or a full list of chat messages.
        stage: accounting label, e.g. "answer" or "judge".
        response_format: "json" for any JSON object, or a JSON schema dict.
        logprobs, top_logprobs: return per-token logprobs with that many alternatives.
        sample: which sample this is when temperature > 0 (each is cached separately).
        validate: extra check on the reply; a failure counts like a parse failure.
        cache_tag: keeps otherwise identical requests apart in the cache, for a timed
            configuration that must make its own calls (e.g. "concurrency=4").
        text_completion: send `prompt` (a string) as raw text to continue, with no chat
            template and no system message (the /completions endpoint remotely).
        timeout, retry: how long to wait and how often to retry; not part of the cache key.

    Raises:
        ParseError when structured output stays invalid after one repair round;
        FatalError (ContextLengthError, MissingAPIKeyError, ...) when retrying cannot help;
        RetryableError when the retries ran out.
    """
    backend = backend_for(model)
    if text_completion and (not isinstance(prompt, str) or system or response_format or logprobs):
        raise ValueError("text_completion takes a plain string prompt, without system message, "
                         "response_format or logprobs")
    messages = as_messages(prompt, system)
    settings = Settings(temperature, max_tokens, response_format, logprobs, top_logprobs, seed)
    request = _cache_key(backend, messages, settings, sample, cache_tag, text_completion)
    key = request_key(request)  # hashed once: a long prompt's canonical JSON is most of a cache lookup's cost
    sent = prompt_sha256(prompt if text_completion else messages)
    cache = DiskCache(llm_cache_dir(), required=CACHED_FIELDS)
    started = time.perf_counter()
    ACCOUNTING.note_model(stage, model)
    hit = _cached_reply(cache, request, key, settings, validate, stage)
    if hit is not None:
        return Completion(**hit, latency_s=0.0, cached=True, model=model, prompt_sha256=sent)
    if replaying():
        replay_failure(request, stage)  # a request that failed when the run made it fails again, with no call
    refuse_call(stage, f"the reply of {model} to prompt {sent}")
    ask = _Ask(model, stage, backend, prompt, messages, settings, text_completion, timeout, retry)
    try:
        reply, parsed, note = _asked(ask, validate)
    except LLMError as err:
        # Parse failures have their own column; a backend without logprobs is a fallback its caller takes (the
        # sampled token, or a stop when a run requires logprobs), not a failed call.
        if not isinstance(err, (ParseError, LogprobsUnavailableError)):
            ACCOUNTING.add(stage, errors=1)
        else:  # kept so that a replay of the run meets the same failure without a call (never a reply)
            record_failure(request, err)
        raise
    finally:
        ACCOUNTING.span(stage, started)
    latency = time.perf_counter() - started
    value = {"text": reply.text, "json": parsed, "logprobs": reply.logprobs, "prompt_tokens": reply.prompt_tokens,
             "completion_tokens": reply.completion_tokens, "finish_reason": reply.finish_reason,
             "call_latency_s": round(latency, 3), **({"note": note} if note else {})}
    cache.put(request, value, key)  # only validated successes reach this line
    return Completion(**value, latency_s=latency, cached=False, model=model, prompt_sha256=sent)


def _cached_reply(cache: DiskCache, request: dict, key: str, settings: Settings, validate: Validator | None,
                  stage: str) -> dict | None:
    """The cached reply to `request` (counted as a cache hit), or None; a cached reply the validator now refuses
    is no hit."""
    hit = cache.get(request, key)
    if hit is None or not isinstance(hit["text"], str) or _check(hit["text"], settings, validate)[1] is not None:
        return None
    hit = {k: hit.get(k) for k in (*CACHED_FIELDS, "call_latency_s", "note")}
    ACCOUNTING.add(stage, cache_hits=1, cached_prompt_tokens=hit["prompt_tokens"],
                   cached_completion_tokens=hit["completion_tokens"])
    return hit


def _asked(ask: _Ask, validate: Validator | None):
    """(reply, parsed JSON, note) of a request made now: one call, and where its reply does not parse or validate,
    one repair round showing the model its reply and what was wrong; ParseError when that fails too."""
    reply, note = _call(ask, ask.messages)
    parsed, problem = _check(reply.text, ask.settings, validate)
    if problem:
        ACCOUNTING.add(ask.stage, repairs=1)
        repair = ask.messages + [{"role": "assistant", "content": reply.text},
                                 {"role": "user", "content": render("json_repair", problem=problem)}]
        reply, note = _call(ask, repair)
        parsed, problem = _check(reply.text, ask.settings, validate)
        if problem:
            ACCOUNTING.add(ask.stage, parse_failures=1)
            raise ParseError(f"[{ask.stage}] {ask.model}: {problem}", reply.text)
    return reply, parsed, note


def _call(ask: _Ask, messages: Messages):
    """(reply, note): one backend call with bounded retries, every attempt counted (calls, tokens, model time,
    per replica of a served model), the reply kept to the size its budget allows (reply_limits.py)."""
    kept = [None]

    def attempt():
        t0 = time.perf_counter()
        try:
            reply = (ask.backend.complete_text(ask.prompt, ask.settings, ask.timeout) if ask.text_completion
                     else ask.backend.complete(messages, ask.settings, ask.timeout))
        except LLMError as err:
            if err.endpoint:
                ACCOUNTING.add_endpoint(err.endpoint, calls=1, errors=1)
            raise
        finally:
            ACCOUNTING.add(ask.stage, calls=1, model_seconds=time.perf_counter() - t0)
        reply, kept[0] = bounded(reply, ask.settings.max_tokens)
        tokens = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens}
        ACCOUNTING.add(ask.stage, prompt_tokens_sq=(reply.prompt_tokens or 0) ** 2, **tokens)
        if reply.endpoint:
            ACCOUNTING.add_endpoint(reply.endpoint, calls=1, model_seconds=time.perf_counter() - t0, **tokens)
        return reply

    reply = call_with_retries(attempt, ask.retry, on_retry=lambda err, wait: ACCOUNTING.add(ask.stage, retries=1))
    return reply, kept[0]
