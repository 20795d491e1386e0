"""Judge-free baselines: what a judge has to beat to be worth its calls.

    content_overlap("The tower was finished in 1889.", "Finished in 1889, the tower ...")   # 1.0

The share of one text's content words (lemmatized, closed-class words left out)
that occur in another. Beside an NLI or faithfulness judge it reads "how much of
the hypothesis is in the premise"; beside a relevance judge, "how much of the
question the answer takes up"; beside a correctness judge, "how much of the
reference the answer contains". On a labelled set written apart from this repo,
such a word-overlap score separated supported from unsupported sentences better
than the 1.5B NLI pipeline: a judge that does not beat it says so in its card.
"""

from __future__ import annotations

import re
from functools import lru_cache

THRESHOLD = 0.5  # the baseline's yes/no: at least half of the content words found

# English closed-class words (articles, pronouns, auxiliaries, prepositions, conjunctions): not content.
_ENGLISH_FUNCTION_WORDS = frozenset("""
a an the this that these those it its they them their he him his she her we us our you your i me my
be am is are was were been being have has had do does did will would shall should can could may might must
of to in on at by for with from about as into through over under between after before during without within
and or but nor so yet if then than because while when where which who whom whose what how why not no
there here also just only very too more most such any some all each both either neither other own same
""".split())
_WORD = re.compile(r"[^\W_]+")


@lru_cache(maxsize=100_000)
def _english_lemma(word: str) -> str:
    import simplemma

    return simplemma.lemmatize(word, lang="en").lower()


def content_words(text: str, language: str = "english") -> set[str]:
    """The lemmas of a text's content words (numbers count as content)."""
    words = _WORD.findall(text.lower())
    if language == "polish":
        from ..text.polish import lemma, reading_rank

        return {lemma(w) for w in words if w.isdigit() or reading_rank(w) not in (0, 1)}
    if language != "english":
        raise ValueError(f"no lemmatizer for {language!r}: english or polish")
    return {_english_lemma(w) for w in words if w not in _ENGLISH_FUNCTION_WORDS}


def content_overlap(text: str, reference: str, language: str = "english") -> float | None:
    """Share of `text`'s content words found in `reference`; None when `text` has none (never a silent 0)."""
    words = content_words(text, language)
    if not words:
        return None
    return len(words & content_words(reference, language)) / len(words)
