"""Reading llama.cpp's logits in the same process: a row's log-probabilities and its most probable tokens
(what lclab.models.llama returns as logprobs)."""

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
