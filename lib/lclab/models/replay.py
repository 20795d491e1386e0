"""Replay: every model call answered from the disk cache, none sent (what `python -m lclab.runs.rescore` runs
under). A reply that is not in the cache stops the run with NotInCacheError instead of calling the model, so a
rescore never spends a call, and says which stage missed.

A request that failed when the run made it (a reply that stayed unparseable after the repair round; an endpoint
that gives no logprobs, after which the caller asked again without them) is recorded too, beside the replies
(`failures/` in the model cache; never a reply: a normal run asks such a request again). A replay meets the same
failure from the record, so the run's failed items fail again and its fallbacks are taken again, with no call.
"""

from __future__ import annotations

import os

from ..paths import llm_cache_dir
from .cache import DiskCache
from .errors import LLMError, LogprobsUnavailableError, NotInCacheError, ParseError

REPLAY_ENV = "LCLAB_REPLAY"
# The failures a replay can meet again: each is deterministic for the request that met it.
_REPLAYABLE = {"ParseError": ParseError, "LogprobsUnavailableError": LogprobsUnavailableError}


def replaying() -> bool:
    """True under `LCLAB_REPLAY=1`: answer from the cache only, and resume no item from the item logs."""
    return os.environ.get(REPLAY_ENV, "") == "1"


def refuse_call(stage: str, what: str) -> None:
    """Raise NotInCacheError for an uncached `what` (a reply, embeddings) when replaying; else return."""
    if replaying():
        raise NotInCacheError(f"[{stage}] {what} is not in the model cache, and a replay makes no call (was the "
                              "cache cleared, or did the prompt change since the run?)")


def failures() -> DiskCache:
    """The record of failed requests beside the model cache (and of endpoints without logprobs: scoring.logprob)."""
    return DiskCache(llm_cache_dir() / "failures", required=("error", "message"))


def record_failure(request: dict, err: LLMError) -> None:
    """Keep how a request failed (ParseError with the reply that did not parse, or LogprobsUnavailableError)."""
    if type(err).__name__ in _REPLAYABLE:
        failures().put(request, {"error": type(err).__name__, "message": str(err),
                                  "raw_text": getattr(err, "raw_text", None)})


def replay_failure(request: dict, stage: str) -> None:
    """Under a replay: raise the failure this request met when the run made it, if one is recorded."""
    kept = failures().get(request)
    if kept is None or kept["error"] not in _REPLAYABLE:
        return
    if kept["error"] == "ParseError":
        raise ParseError(kept["message"], kept.get("raw_text") or "")
    raise LogprobsUnavailableError(kept["message"])
