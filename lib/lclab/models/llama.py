"""llama.cpp in the same process: the embedded models, or any GGUF file."""

from __future__ import annotations

import os
import threading
from functools import cached_property

from .errors import ContextLengthError, LogprobsUnavailableError
from .local_models import file_sha256, resolve_local
from .protocol import RawReply, Settings, chat_kwargs, normalize_logprobs
from .specs import ModelSpec


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
        kwargs = chat_kwargs(messages, settings,
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
            logprobs = normalize_logprobs(content)
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
