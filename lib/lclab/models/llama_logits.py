"""Reading llama.cpp's state in the same process: a logits row's log-probabilities and its most probable tokens
(what lclab.models.llama returns as logprobs), which requests one row answers alone, and how much of a prompt the
KV cache already holds."""

from __future__ import annotations


def top_pairs(llama, row: int, k: int):
    """(log-probabilities over the vocabulary, the k most probable [token text, logprob]) of one logits row."""
    import numpy as np

    logits = np.ctypeslib.as_array(llama._ctx.get_logits_ith(row), shape=(llama.n_vocab(),)).astype(np.float64)
    peak = logits.max()
    logprobs = logits - (peak + np.log(np.exp(logits - peak).sum()))
    k = max(1, k)
    top = np.argpartition(-logprobs, k - 1)[:k]
    top = top[np.argsort(-logprobs[top])]
    return logprobs, [[piece(llama, t), float(logprobs[t])] for t in top]


def piece(llama, token: int) -> str:
    return llama.detokenize([int(token)]).decode("utf-8", errors="ignore")


def kept_tokens(llama, prompt: list[int]) -> int:
    """Tokens at the start of `prompt` that llama.cpp keeps in its KV cache from the call before (its last token is
    always read again, for the logits): what the call does not pay to read. Called under the model's lock."""
    return llama.longest_token_prefix(llama.input_ids[:llama.n_tokens].tolist(), prompt[:-1])


def first_token_only(settings) -> bool:
    """A greedy one-token request for logprobs: all a logprob-weighted score needs, read from the last prompt
    token's logits (top_pairs) with nothing decoded."""
    return (settings.logprobs and settings.max_tokens == 1 and settings.temperature == 0
            and settings.response_format is None)
