"""Replay: every model call answered from the disk cache, none sent (what `python -m lclab.runs.rescore` runs
under). A reply that is not in the cache stops the run with NotInCacheError instead of calling the model, so a
rescore never spends a call, and says which stage missed."""

from __future__ import annotations

import os

from .errors import NotInCacheError

REPLAY_ENV = "LCLAB_REPLAY"


def replaying() -> bool:
    """True under `LCLAB_REPLAY=1`: answer from the cache only, and resume no item from the item logs."""
    return os.environ.get(REPLAY_ENV, "") == "1"


def refuse_call(stage: str, what: str) -> None:
    """Raise NotInCacheError for an uncached `what` (a reply, embeddings) when replaying; else return."""
    if replaying():
        raise NotInCacheError(f"[{stage}] {what} is not in the model cache, and a replay makes no call (was the "
                              "cache cleared, or did the prompt change since the run?)")
