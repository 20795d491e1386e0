"""Filling an exact token budget: haystack sentences from the user's documents (or the shipped essays), with
needle sentences placed at depths, cut to the longest context whose whole prompt fits the budget in the
model's own tokens."""

from __future__ import annotations

import random
import re
from bisect import bisect_right
from itertools import accumulate
from typing import Callable, Sequence

from .once import built_once

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"^[a-z]{5,9}$")


@built_once(4)
def corpus_sentences(corpus: str) -> tuple[str, ...]:
    """Every sentence of the corpus's documents, in file order (whitespace folded)."""
    from ..text.corpus import load_corpus

    out = []
    for doc in load_corpus(corpus).documents:
        for sentence in _SENTENCE_END.split(" ".join(doc.text.split())):
            if len(sentence) > 20:
                out.append(sentence)
    if not out:
        raise ValueError(f"corpus {corpus!r} holds no sentences to build a haystack from")
    return tuple(out)


@built_once(4)
def corpus_words(corpus: str) -> tuple[str, ...]:
    """Distinct plain lower-case words of 5-9 letters from the corpus: keys, word values and listed words."""
    words = {w for s in corpus_sentences(corpus) for w in re.findall(r"[A-Za-z]+", s) if _WORD.match(w)}
    return tuple(sorted(words))


def filler(corpus: str, rng: random.Random) -> list[str]:
    """The corpus's sentences from a seeded starting point, wrapping around: one sample's haystack order."""
    sentences = corpus_sentences(corpus)
    start = rng.randrange(len(sentences))
    return list(sentences[start:] + sentences[:start])


def place(units: Sequence[str], needles: Sequence[tuple[float, str]]) -> list[str]:
    """The units with each (depth %, needle) inserted at that depth (0: first, 100: last), in depth order."""
    out = list(units)
    for depth, needle in sorted(needles, key=lambda d: d[0], reverse=True):
        out.insert(round(depth / 100 * len(units)), needle)
    return out


def fit(units: Sequence[str], needles: Sequence[tuple[float, str]], build: Callable[[str], str],
        count: Callable[[str], int], budget: int, joiner: str = " ") -> tuple[str, int]:
    """(prompt, its tokens): the most units (with every needle placed) whose whole prompt fits `budget` tokens."""
    # No budget needs more units than it has tokens' worth of characters x 20 (a token is rarely longer than
    # a few characters): searching past that would only count huge prompts.
    def spent(k: int) -> int:  # the characters of the first k units and their joiners
        return chars[k] + k * len(joiner)

    chars = [0]  # chars[k]: the characters of the first k units, summed a block at a time (in C, not per unit)
    while len(chars) <= len(units) and spent(len(chars) - 1) <= 20 * budget:
        chars += list(accumulate(map(len, units[len(chars) - 1:len(chars) + 1023]), initial=chars[-1]))[1:]
    most = min(len(units), bisect_right(range(len(chars)), 20 * budget, key=spent))
    chars = chars[:most + 1]
    return fit_by(lambda k: build(joiner.join(place(units[:k], needles))), most, count, budget,
                  whole=most == len(units), length=_prompt_length(units, needles, build, joiner, chars))


def _prompt_length(units: Sequence[str], needles: Sequence[tuple[float, str]], build: Callable[[str], str],
                   joiner: str, chars: list[int]) -> Callable[[int], int] | None:
    """k -> the characters of fit's prompt with k units, without building it (the guesses measure dozens of
    candidate prompts), or None when `build` is not a fixed text around one copy of the haystack: checked on
    a probe, on no units and on all of them (a build that rewrites the haystack is measured the slow way)."""
    most = len(chars) - 1
    needle_chars = sum(len(text) for _, text in needles)
    around = len(build(""))

    def length(k: int) -> int:
        return around + chars[k] + needle_chars + max(k + len(needles) - 1, 0) * len(joiner)

    def built(k: int) -> int:
        return len(build(joiner.join(place(units[:k], needles))))

    exact = len(build("x" * 1000)) - around == 1000 and length(0) == built(0) and length(most) == built(most)
    return length if exact else None


def fit_by(prompt_with: Callable[[int], str], most: int, count: Callable[[str], int], budget: int,
           whole: bool = True, length: Callable[[int], int] | None = None) -> tuple[str, int]:
    """(prompt, its tokens) for the largest k <= most whose `prompt_with(k)` fits `budget` tokens.

    Every candidate is counted with the model's own tokenizer (chat template included), so the budget is exact
    and never overrun. Counting is the cost (a served model's tokenizer is a round trip), so candidates are
    guessed from characters per token, measured on the counts already made, which lands next to the answer in
    two or three counts where plain bisection takes log2(budget); bisection takes over if guessing stalls.
    Every unit holds at least one token, so k stays below `budget`. `length(k)`: the characters of
    `prompt_with(k)` when they can be known without building it."""
    whole = whole and most <= budget
    most = min(most, budget)
    counted = {0: count(prompt_with(0))}
    if counted[0] > budget:
        raise ValueError(f"a {budget}-token budget cannot hold the task's question and needles alone "
                         f"({counted[0]} tokens): give a larger context_tokens")
    lo, hi = 0, most + 1  # prompt_with(lo) fits; prompt_with(hi) does not, or lies beyond the units
    while hi - lo > 1:
        k = _guess(length or (lambda k: len(prompt_with(k))), lo, hi, counted, budget) if len(counted) <= 4 \
            else (lo + hi) // 2
        counted[k] = count(prompt_with(k))
        lo, hi = (k, hi) if counted[k] <= budget else (lo, k)
    if lo == most and whole:
        raise ValueError(f"the corpus is too small to fill {budget} tokens ({most} units fit whole)")
    return prompt_with(lo), counted[lo]


def _guess(length: Callable[[int], int], lo: int, hi: int, counted: dict[int, int], budget: int) -> int:
    """The k in (lo, hi) whose prompt should just fit: the fitting prompt's characters plus its slack in tokens
    at the characters per token of the longest prompt counted so far (4 before any)."""
    longest = max(counted)
    per_token = length(longest) / counted[longest] if longest else 4.0
    target = length(lo) + (budget - counted[lo]) * per_token
    a, b = lo + 1, hi - 1  # the largest k in [a, b] whose prompt has at most `target` characters (else a)
    while a < b:
        mid = (a + b + 1) // 2
        if length(mid) <= target:
            a = mid
        else:
            b = mid - 1
    return a
