"""Text normalization for the judge-free answer check."""

from __future__ import annotations

import re
import string
import unicodedata

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation + "“”‘’–—"})


def normalize(text: str) -> str:
    """Lower-case, strip accents' compatibility forms, punctuation, articles and extra spaces."""
    text = unicodedata.normalize("NFKC", text).lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def contains_answer(response: str, gold: str) -> bool:
    """Whether the normalized gold answer occurs in the normalized response, on word boundaries."""
    gold_n = normalize(gold)
    if not gold_n:
        return False
    return f" {gold_n} " in f" {normalize(response)} "
