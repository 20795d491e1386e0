"""Where the exact prompt of every call is said before it is sent (or read from the cache): a run's prompts log
(lclab.runs.prompts_log) listens here, so a RAG answer's prompt, built from what retrieval found, is on disk
before its call like a first stage's sample is. The model door knows nothing of runs: it only announces."""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Callable

Listener = Callable[[str, str, Any, str], None]  # (stage, model, prompt, prompt_sha256)
_LISTENER: contextvars.ContextVar[Listener | None] = contextvars.ContextVar("prompt_listener", default=None)


@contextlib.contextmanager
def listening(listener: Listener):
    """Calls made in this context (this thread) are announced to `listener` before they are sent."""
    token = _LISTENER.set(listener)
    try:
        yield
    finally:
        _LISTENER.reset(token)


def announce(stage: str, model: str, prompt, sha: str) -> None:
    listener = _LISTENER.get()
    if listener is not None:
        listener(stage, model, prompt, sha)
