"""The backend of each model spec, made once per process, and what a model's tokenizer and window say: token
counts, context budgets. The gateway (gateway.py) calls models through these backends; nothing else does."""

from __future__ import annotations

import os
import threading

from .errors import ContextLengthError
from .protocol import Backend
from .specs import ModelSpec, parse_spec

Messages = list[dict[str, str]]


_backends: dict[str, Backend] = {}
_backends_lock = threading.Lock()


def _make_backend(spec: ModelSpec) -> Backend:
    if spec.backend == "hf":
        from .hf import HFBackend

        return HFBackend(spec)
    if spec.backend == "local":
        from .llama import LocalBackend

        return LocalBackend(spec)
    if spec.backend == "fake":
        from .fake import FakeBackend

        return FakeBackend(spec)
    from .remote import OpenAIBackend

    return OpenAIBackend(spec)


def backend_for(model: str) -> Backend:
    """The backend object for a model spec, created once per process."""
    with _backends_lock:
        if model not in _backends:
            _backends[model] = _make_backend(parse_spec(model))
        return _backends[model]


def reset_backend_registry() -> None:
    """Forget every backend made so far: the next call reads the environment again
    (OPENAI_BASE_URL, keys). Loaded llama.cpp weights stay loaded."""
    with _backends_lock:
        _backends.clear()


def count_tokens(model: str, text: str) -> int:
    """Tokens of `text` under the model's own tokenizer (tiktoken for remote models)."""
    return backend_for(model).count_tokens(text)


def count_prompt_tokens(model: str, prompt: str | Messages, system: str | None = None) -> int:
    """Tokens of the whole prompt as the model reads it (chat template included for local models)."""
    return backend_for(model).count_prompt_tokens(as_messages(prompt, system))


def chat_text(model: str, prompt: str | Messages) -> str | None:
    """The exact text the model reads for a chat prompt, ending with the header its reply starts after (the chat
    template applied), for a raw completion to continue; None where the lab cannot render the model's template
    (a served model whose server has no template route)."""
    render = getattr(backend_for(model), "chat_text", None)
    return render(as_messages(prompt)) if render else None


def shared_prefix_tokens(model: str, before: str | Messages, prompt: str | Messages) -> int:
    """Tokens at the start of `prompt`, as the model reads it, that equal the start of `before` (what a local
    engine keeps in its KV cache between two calls): counted on the chat-formatted prompts where the backend can
    format them (the template's own opening, a system message, is shared too), else on the messages' text."""
    backend = backend_for(model)
    formatted = getattr(backend, "shared_prefix_tokens", None)
    kept = formatted(as_messages(before), as_messages(prompt)) if formatted else None
    if kept is None:
        text = lambda p: p if isinstance(p, str) else "\n".join(m["content"] for m in p)  # noqa: E731
        common = os.path.commonprefix([text(before), text(prompt)])
        kept = backend.count_tokens(common) if common else 0
    return kept


def budget_counters(model: str):
    """(whole prompt, bare text) token counters for filling a context budget.

    The budget covers the prompt as the model reads it, chat template included;
    documents are priced as bare text so the template is not charged per document.
    """
    return (lambda text: count_prompt_tokens(model, text)), (lambda text: count_tokens(model, text))


def context_window(model: str) -> int | None:
    """The model's context window in tokens (a served model's as its server reports it; None if unknown)."""
    return backend_for(model).context_window()


def check_budget(model: str, budget: int, reply_tokens: int) -> None:
    """Refuse, with the numbers, a prompt budget the model's window cannot hold together with its reply."""
    window = context_window(model)
    if window is not None and budget + reply_tokens > window:
        raise ContextLengthError(
            f"a {budget}-token prompt plus {reply_tokens} reply tokens is {budget + reply_tokens} tokens, more than "
            f"the {window}-token context window of {model} ({tokenizer_name(model)}): lower the budget, or give the "
            "model a larger window")


def tokenizer_name(model: str) -> str:
    return backend_for(model).tokenizer_name


def as_messages(prompt: str | Messages, system: str | None = None) -> Messages:
    """A prompt as chat messages: a bare string is one user message; a system message goes first."""
    messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
    return ([{"role": "system", "content": system}] if system else []) + messages
