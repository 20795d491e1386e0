"""Polish text normalization for rule-based answer checks: letters and digits only,
lower case, every word reduced to one lemma.

    >>> normalize("Powiedział jej, że ma 35 lat (skłamał!).")
    'powiedzieć ona że mieć 35 rok skłamać'

The lemma of a word does not depend on its neighbours: a rule phrase and an
answer are normalized by the same function, so whatever reading is chosen for
an ambiguous form is chosen on both sides, and a phrase matches every
inflected form of itself ("opłaty skarbowej" matches "opłata skarbowa").

Morfeusz 2 with the SGJP dictionary (both in the `morfeusz2` wheel) lists the
readings of a form; archaic ones are dropped when others exist, a pronoun is
kept first, then the best part of speech; ties between lemmas of one part of
speech go to simplemma's Polish lemma table (which holds the usual lemma of a
form), then to the lemma with the most readings. Forms Morfeusz does not know
get simplemma's lemma, or stay as they are.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

# Which reading of an ambiguous form to keep. The choice depends on the kinds of
# reading a form has, never on the form itself, so that the forms of one word
# agree ("potwierdzający" and "potwierdzającym" are both the adjective):
#  1. a personal pronoun ("jej" is her, not the interjection), unless the form is
#     a pronoun only after a preposition: "nie" would otherwise always be "on";
#  2. the best part of speech below: closed classes first ("albo" is "or", not
#     the vestment "alba"), nouns before verbs and gerunds ("pytanie" is the
#     question, not asking), adjectives before participles; the imperative late,
#     or "lub" (or) would be "like!".
_PRONOUNS = {"ppron12", "ppron3", "siebie"}
_RANK = {
    **dict.fromkeys(["prep", "conj", "comp", "qub", "part"], 1),
    **dict.fromkeys(["subst", "depr"], 2),
    **dict.fromkeys(["fin", "bedzie", "praet", "inf", "imps", "pcon", "pant", "winien", "pred"], 3),
    **dict.fromkeys(["adj", "adja", "adjp", "adjc"], 4),
    **dict.fromkeys(["ger", "pact", "ppas"], 5),
    **dict.fromkeys(["num", "numcol", "dig", "romandig"], 6),
    "adv": 7,
    **dict.fromkeys(["impt", "brev"], 8),
}
# Forms whose ranked reading is the rare one in official texts: "lata" after a
# number is years far more often than summers; "być" is to be, not a form of "bycie".
_USUAL = {"lata": "rok", "być": "być"}
_MARGINAL = {"daw.", "przest.", "rzad.", "gwar.", "arch.", "reg."}  # SGJP's archaic, rare, dialectal
_LAST = 10
_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits: punctuation and "_" separate words

_morfeusz_lock = threading.Lock()  # one analyser, shared by notebook worker threads


@lru_cache(maxsize=1)
def _analyser():
    import morfeusz2

    return morfeusz2.Morfeusz()


def _pronoun_lemma(tags: list[str]) -> str:
    """SGJP files every third-person pronoun under "on"; name the gender when the form has one.

    "jej" and "ją" are feminine singular only, so they become "ona", as a
    reader would lemmatize them; forms shared by several genders stay "on".
    """
    numbers = {t.split(":")[1] for t in tags}
    genders = {g for t in tags for g in t.split(":")[3].split(".")}
    if numbers == {"sg"} and genders == {"f"}:
        return "ona"
    if numbers == {"sg"} and genders == {"n"}:
        return "ono"
    if numbers == {"pl"}:
        return "oni"
    return "on"


def _rank(tag: str) -> int:
    return _RANK.get(tag.split(":")[0], _LAST)


def _is_pronoun(tag: str) -> bool:
    parts = tag.split(":")
    return parts[0] in _PRONOUNS and parts[-1] != "praep"  # "praep": only after a preposition


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """The lemma of one lower-case word (a form Morfeusz does not know comes back as simplemma has it).

    The lemma of an abbreviation may be a phrase ("np" -> "na przykład").
    """
    return _lemma(word).replace("_", " ")


def _lemma(word: str) -> str:
    import simplemma

    if word.isdigit() or len(word) == 1:
        return word  # single letters are symbols here ("kategoria B", "załącznik A")
    if word in _USUAL:
        return _USUAL[word]
    with _morfeusz_lock:
        readings = _analyser().analyse(word)
    # A word may split into segments ("zrobiłem" = "zrobił" + "em"); the first
    # segment carries the lexical meaning, clitics after it are dropped.
    first = [r[2] for r in readings if r[0] == 0 and r[2][2] != "ign"]
    # Readings SGJP marks as archaic, rare or dialectal lose to any other ("czwartki"
    # is Thursdays, not the archaic "czwartka").
    current = [r for r in first if not set(r[4]) & _MARGINAL]
    first = [(r[1].split(":")[0].lower(), r[2]) for r in (current or first)]
    if not first:
        return simplemma.lemmatize(word, lang="pl").lower()
    pronouns = [(lem, tag) for lem, tag in first if _is_pronoun(tag)]
    if pronouns:
        if pronouns[0][1].startswith("ppron3"):
            return _pronoun_lemma([tag for _, tag in pronouns if tag.startswith("ppron3")])
        return pronouns[0][0]
    best = min(_rank(tag) for _, tag in first)
    counts: dict[str, int] = {}
    for lem, tag in first:
        if _rank(tag) == best:
            counts[lem] = counts.get(lem, 0) + 1
    if len(counts) == 1:
        return next(iter(counts))
    usual = simplemma.lemmatize(word, lang="pl").lower()
    if usual in counts:
        return usual
    return max(counts, key=counts.get)  # the first listed among equals: max keeps insertion order


def words(text: str) -> list[str]:
    """The lemmas of `text`'s words, in order (an abbreviation may give several: "np." -> na, przykład)."""
    return " ".join(lemma(w) for w in _WORD.findall(text.lower())).split()


def normalize(text: str) -> str:
    """Letters and digits only, lower case, lemmatized, joined by single spaces."""
    return " ".join(words(text))
