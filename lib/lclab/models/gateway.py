"""The only place that calls a model.

    from lclab.models import Request, complete
    reply = complete("local/qwen2.5-coder-0.5b", "What is 2+2?", stage="answer", request=Request(max_tokens=8))
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

from ..paths import llm_cache_dir
from ..prompts import render
from .accounting import ACCOUNTING
from .cache import DiskCache, request_key
from .errors import LLMError, LogprobsUnavailableError, ParseError
from .jsonparse import JSONParseError, parse_json_object
from .backends import as_messages, backend_for
from .protocol import Backend
from .replay import record_failure, refuse_call, replay_failure, replaying
from .reply_limits import bounded
from .request import Messages, Request
from .retry import call_with_retries
from .sent import announce


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

def cached(model: str, prompt: str | Messages, request: Request) -> dict | None:
    """The cached reply `complete` would return for this request, or None, without calling anything (plans)."""
    key = request.cache_key(backend_for(model).identity, as_messages(prompt, request.system))
    return DiskCache(llm_cache_dir(), required=CACHED_FIELDS).get(key)


def _check(text: str, request: Request) -> tuple[dict | None, str | None]:
    """Parse and validate a reply: (parsed JSON or None, problem or None)."""
    parsed = None
    validate = request.validate
    if request.response_format is not None:
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
    """One request as the gateway makes it: what is sent, to whom, and how."""
    model: str
    stage: str
    backend: Backend
    prompt: str | Messages  # as given (a text completion sends it raw)
    messages: Messages
    request: Request


def complete(model: str, prompt: str | Messages, *, stage: str, request: Request = Request()) -> Completion:
    """Ask `model` (a spec string) for one reply.

    Args:
        prompt: a user message, or a full list of chat messages (a plain string for a text completion).
        stage: accounting label, e.g. "answer" or "judge".
        request: everything else the call asks (lclab.models.request.Request); its cache key is the reply's.

    Raises:
        ParseError when structured output stays invalid after one repair round;
        FatalError (ContextLengthError, MissingAPIKeyError, ...) when retrying cannot help;
        RetryableError when the retries ran out.
    """
    backend = backend_for(model)
    if request.text_completion and not isinstance(prompt, str):
        raise ValueError("text_completion takes a plain string prompt")
    messages = as_messages(prompt, request.system)
    key_request = request.cache_key(backend.identity, messages)
    key = request_key(key_request)  # hashed once: a long prompt's canonical JSON is most of a cache lookup's cost
    sent = prompt_sha256(prompt if request.text_completion else messages)
    announce(stage, model, prompt, sent)  # on disk before the call, where a run listens (lclab.runs.prompts_log)
    cache = DiskCache(llm_cache_dir(), required=CACHED_FIELDS)
    started = time.perf_counter()
    ACCOUNTING.note_request(stage, model, key)  # made or cached: what a plan counts
    hit = _cached_reply(cache, key_request, key, request, stage)
    if hit is not None:
        return Completion(**hit, latency_s=0.0, cached=True, model=model, prompt_sha256=sent)
    if replaying():
        replay_failure(key_request, stage)  # a request that failed when the run made it fails again, with no call
    refuse_call(stage, f"the reply of {model} to prompt {sent}")
    ask = _Ask(model, stage, backend, prompt, messages, request)
    try:
        reply, parsed, note = _asked(ask)
    except LLMError as err:
        # Parse failures have their own column; a backend without logprobs is a fallback its caller takes (the
        # sampled token, or a stop when a run requires logprobs), not a failed call.
        if not isinstance(err, (ParseError, LogprobsUnavailableError)):
            ACCOUNTING.add(stage, errors=1)
        else:  # kept so that a replay of the run meets the same failure without a call (never a reply)
            record_failure(key_request, err)
        raise
    finally:
        ACCOUNTING.span(stage, started)
    latency = time.perf_counter() - started
    value = {"text": reply.text, "json": parsed, "logprobs": reply.logprobs, "prompt_tokens": reply.prompt_tokens,
             "completion_tokens": reply.completion_tokens, "finish_reason": reply.finish_reason,
             "call_latency_s": round(latency, 3), **({"note": note} if note else {})}
    cache.put(key_request, value, key)  # only validated successes reach this line
    return Completion(**value, latency_s=latency, cached=False, model=model, prompt_sha256=sent)


def _cached_reply(cache: DiskCache, key_request: dict, key: str, request: Request, stage: str) -> dict | None:
    """The cached reply to `request` (counted as a cache hit), or None; a cached reply the validator now refuses
    is no hit."""
    hit = cache.get(key_request, key)
    if hit is None or not isinstance(hit["text"], str) or _check(hit["text"], request)[1] is not None:
        return None
    hit = {k: hit.get(k) for k in (*CACHED_FIELDS, "call_latency_s", "note")}
    ACCOUNTING.add(stage, cache_hits=1, cached_prompt_tokens=hit["prompt_tokens"],
                   cached_completion_tokens=hit["completion_tokens"])
    return hit


def _asked(ask: _Ask):
    """(reply, parsed JSON, note) of a request made now: one call, and where its reply does not parse or validate,
    one repair round showing the model its reply and what was wrong; ParseError when that fails too."""
    reply, note = _call(ask, ask.messages)
    parsed, problem = _check(reply.text, ask.request)
    if problem:
        ACCOUNTING.add(ask.stage, repairs=1)
        repair = ask.messages + [{"role": "assistant", "content": reply.text},
                                 {"role": "user", "content": render("json_repair", problem=problem)}]
        reply, note = _call(ask, repair)
        parsed, problem = _check(reply.text, ask.request)
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
            settings, timeout = ask.request.settings, ask.request.timeout
            reply = (ask.backend.complete_text(ask.prompt, settings, timeout) if ask.request.text_completion
                     else ask.backend.complete(messages, settings, timeout))
        except LLMError as err:
            if err.endpoint:
                ACCOUNTING.add_endpoint(err.endpoint, calls=1, errors=1)
            raise
        finally:
            ACCOUNTING.add(ask.stage, calls=1, model_seconds=time.perf_counter() - t0)
        reply, kept[0] = bounded(reply, ask.request.max_tokens)
        tokens = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens}
        ACCOUNTING.add(ask.stage, **tokens, **_priced(reply, ask.request))
        if reply.endpoint:
            ACCOUNTING.add_endpoint(reply.endpoint, calls=1, model_seconds=time.perf_counter() - t0, **tokens)
        return reply

    reply = call_with_retries(attempt, ask.request.retry,
                              on_retry=lambda err, wait: ACCOUNTING.add(ask.stage, retries=1))
    return reply, kept[0]


def _priced(reply, request) -> dict:
    """The call's counts that its measured time is set against (lclab.planning.speed.record_throughput): as a
    plan prices it, only the prompt after a prefix the model kept, and each reply token's grammar or logprobs."""
    n, reply_tokens = reply.prompt_tokens or 0, reply.completion_tokens or 0
    kept = min(reply.kept_prompt_tokens or 0, n)
    constrained, scored = request.reply_extras
    return {"prompt_tokens_sq": n * n, "read_prompt_tokens": n - kept, "read_prompt_tokens_sq": n * n - kept * kept,
            "grammar_tokens": reply_tokens if constrained else 0, "scored_tokens": reply_tokens if scored else 0}
