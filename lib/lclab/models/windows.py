"""Which prompt lengths a model's window holds: the check every experiment with a list of lengths makes before
any work (beside `gateway.check_budget`, which refuses one budget)."""

from __future__ import annotations

from .errors import ContextLengthError
from .backends import context_window


def within_window(model: str, context_tokens: list[int], max_answer_tokens: int, beyond_window: str = "refuse"
                  ) -> tuple[list[int], str | None]:
    """(the lengths to run, a note naming those left out): the lengths whose prompt and reply fit the model's
    window (a served model's as its server reports it). With beyond_window="refuse" a length that does not fit
    stops the run before any work, named with the window; with "skip" it is left out and the note says so."""
    if beyond_window not in ("refuse", "skip"):
        raise ValueError(f"beyond_window={beyond_window!r}: use 'refuse' or 'skip'")
    window = context_window(model)
    beyond = [n for n in context_tokens if window is not None and n + max_answer_tokens > window]
    if not beyond:
        return list(context_tokens), None
    kept = [n for n in context_tokens if n not in beyond]
    what = (f"context_tokens {beyond} do not fit the {window}-token window of {model} with "
            f"{max_answer_tokens} reply tokens")
    if beyond_window == "refuse" or not kept:
        raise ContextLengthError(f"{what}: drop them, serve the model with a larger window, or set "
                                 "beyond_window: skip to run the lengths that fit")
    return kept, f"left out (beyond_window: skip): {what}"
