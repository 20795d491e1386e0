"""How much of a reply the lab keeps: a misbehaving endpoint's reply never fills the item log and the cache."""

from __future__ import annotations

from dataclasses import replace

# A reply is stored up to this many characters per token asked for (64 x max_tokens): far above any reply that
# keeps to its budget (a token is 3-5 characters), and a misbehaving endpoint's 5 MB reply no longer fills the
# item log and the cache (one smoke run's folder had grown to 77 MB). The item says so in its `reply_note`.
CHARS_PER_TOKEN_KEPT = 64


def bounded(reply, max_tokens: int):
    """The reply with its text cut at CHARS_PER_TOKEN_KEPT x max_tokens characters and at most max_tokens logprob
    entries, and the note saying so (None when nothing was cut)."""
    cap = CHARS_PER_TOKEN_KEPT * max(1, max_tokens)
    logprobs = reply.logprobs[:max_tokens] if reply.logprobs and len(reply.logprobs) > max_tokens else reply.logprobs
    if len(reply.text or "") <= cap and logprobs is reply.logprobs:
        return reply, None
    note = (f"reply truncated at {cap} characters ({len(reply.text)} received for {max_tokens} tokens asked)"
            if len(reply.text or "") > cap else f"logprobs truncated at {max_tokens} tokens")
    return replace(reply, text=reply.text[:cap], logprobs=logprobs), note
