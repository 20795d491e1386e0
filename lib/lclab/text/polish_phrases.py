"""Polish phrases to lemmas, reading each word with its neighbours: what RAG-IFEval's `include` and `exclude`
compare (an answer and a rule phrase go through the same function).

    >>> normalize("Osób niepełnosprawnych dotyczy art. 27 ust. 2.")
    'osoba niepełnosprawny dotyczyć artykuł 27 ustęp 2'

`lclab.text.polish.lemma` reads a word alone, by the kinds of reading it has. Where that is not enough, the
neighbours choose among Morfeusz's readings (never a list of words):

- **agreement**: a word that can be an adjective or participle and agrees in number, case and gender with a
  noun next to it (or one word further, across another adjective) is read as the adjective: "osoba
  niepełnosprawna" and "osób niepełnosprawnych" both hold niepełnosprawny, "stały pobyt" is not a form of
  stać, "osoba uprawniona" is uprawniony like "osób uprawnionych";
- **a verb needs evidence**: a word that can be a verb or something else is read as the verb only where the
  sentence says so: before an infinitive ("może złożyć": móc); or, unless it is a conjunction or particle ("lub"
  stays "or") or a noun that what follows completes (a genitive: "kopię umowy", "kasa chorych"; an agreeing
  adjective: "ogniwa fotowoltaiczne", "dzień roboczy"), before an object ("mają prawo", "złóż wniosek",
  "stanowi podstawę"), before a number ("mamy 30 dni") or after a subject it agrees with ("ustawa stanowi,
  że ...");
- **abbreviations** of legal and administrative texts are read as the words they stand for, so either spelling
  matches the other: art. (artykuł), ust. (ustęp), pkt (punkt), poz. (pozycja), zł (złoty), Dz.U. (dziennik
  ustaw);
- **"maja"** is May's genitive after a number ("31 maja"), the name Maja when capitalized elsewhere, and May
  otherwise (lower-case "maja" in official texts is the month).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .polish import lemma, readings, tag_rank

ABBREVIATIONS = {"art": "artykuł", "ust": "ustęp", "pkt": "punkt", "poz": "pozycja", "zł": "złoty"}
_TWO_WORD_ABBREVIATIONS = {("dz", "u"): ["dziennik", "ustawa"]}
_VERB = {"fin", "impt", "praet", "inf", "bedzie", "imps", "winien"}
_ADJECTIVE = {"adj", "ppas", "pact"}
_NOMINAL = {"subst", "depr", "adj", "num", "ppron12", "ppron3", "ger"}
_WORD = re.compile(r"[^\W_]+")
_CLAUSE = re.compile(r"[,;:!?()\[\]\"„”«»–—]")


@lru_cache(maxsize=200_000)
def _tags(word: str) -> tuple[str, ...]:
    """Morfeusz's tags of a word: asked once per word, though each word is its neighbours' neighbour too."""
    return tuple(tag for _, tag, _ in readings(word))


def _features(tag: str) -> tuple[set[str], set[str], set[str]] | None:
    """(numbers, cases, genders) of a nominal tag ("adj:sg:nom.voc:f:pos"), or None for a tag without them."""
    parts = tag.split(":")
    if len(parts) < 4 or parts[0] not in _ADJECTIVE | {"subst", "depr"}:
        return None
    return set(parts[1].split(".")), set(parts[2].split(".")), set(parts[3].split("."))


def _agree(a: str, b: str) -> bool:
    fa, fb = _features(a), _features(b)
    return fa is not None and fb is not None and all(x & y for x, y in zip(fa, fb))


def _adjective_agreeing(tokens: list[str], i: int) -> bool:
    """Whether word i can be an adjective agreeing with a noun beside it (or one further, across an adjective
    that agrees too)."""
    own = [t for t in _tags(tokens[i]) if t.split(":")[0] in _ADJECTIVE]
    if not own:
        return False
    for step in (-1, 1):
        for distance in (1, 2):
            j = i + step * distance
            if not 0 <= j < len(tokens):
                break
            nouns = [t for t in _tags(tokens[j]) if t.startswith(("subst:", "depr:"))]
            if any(_agree(a, n) for a in own for n in nouns):
                return True
            between = [t for t in _tags(tokens[j]) if t.split(":")[0] in _ADJECTIVE]
            if not any(_agree(a, b) for a in own for b in between):
                break  # only an agreeing adjective lets agreement reach one word further
    return False


def _cases(tag: str) -> set[str]:
    parts = tag.split(":")
    return set(parts[2].split(".")) if len(parts) > 2 else set()


def _noun_evidence(tags: tuple[str, ...], following: tuple[str, ...]) -> bool:
    """Word i read as a noun by what follows it: a genitive (its complement: "kopię umowy", "kasa chorych",
    "dni roboczych") or an adjective agreeing with it ("ogniwa fotowoltaiczne", "dzień roboczy")."""
    nouns = [t for t in tags if t.startswith(("subst:", "depr:"))]
    if not nouns:
        return False
    genitive = any(t.split(":")[0] in _NOMINAL and "gen" in _cases(t) for t in following)
    agreeing = any(_agree(n, a) for n in nouns for a in following if a.split(":")[0] in _ADJECTIVE)
    return genitive or agreeing


def _verb_evidence(tokens: list[str], i: int) -> bool:
    """Whether word i, which can be a verb, is read as one: the neighbours must say so, a following word alone
    does not. A verb reading needs an infinitive after it (a modal: "może złożyć"); or, where the word is no
    conjunction or particle ("lub", "może" stay what they usually are) and no noun that what follows completes
    (a genitive, an agreeing adjective: `_noun_evidence`), an object after it ("mają prawo", "złóż wniosek",
    "stanowi podstawę"), a number after it ("mamy 30 dni"), or a subject before it, a nominative noun agreeing in
    number with a finite verb of the third person ("ustawa stanowi, że ...")."""
    tags = _tags(tokens[i])
    verbs = [t for t in tags if t.split(":")[0] in _VERB]
    if not verbs:
        return False
    following = _tags(tokens[i + 1]) if i + 1 < len(tokens) else ()
    if any(t.startswith("inf") for t in following):
        return True
    if any(tag_rank(t) == 1 for t in tags) or _noun_evidence(tags, following):
        return False
    # A genitive noun right after a noun is that noun's complement ("Dzienniku Ustaw"), not a verb.
    before = _tags(tokens[i - 1]) if i > 0 else ()
    if any(t.startswith("subst:") for t in before) and any(t.startswith("subst:") and "gen" in _cases(t)
                                                           for t in tags):
        return False
    if any(t.split(":")[0] in _NOMINAL or t.startswith(("dig", "num")) for t in following) or tokens[i + 1:i + 2] \
            and tokens[i + 1].isdigit():
        return True
    numbers = {t.split(":")[1] for t in verbs if t.startswith("fin:") and t.split(":")[2] == "ter"}
    return any(t.startswith("subst:") and "nom" in _cases(t) and t.split(":")[1] in numbers for t in before)


def _preference(tokens: list[str], i: int) -> str | None:
    if _adjective_agreeing(tokens, i):
        return "adj"
    if _verb_evidence(tokens, i):
        return "verb"
    return None


def words(text: str) -> list[str]:
    """The lemmas of `text`'s words, in order, each read with its neighbours (see the module docstring); a comma,
    a bracket or any stronger stop than an abbreviation's dot ends the neighbourhood."""
    return [w for part in _CLAUSE.split(text) for w in _clause_words(part)]


def _clause_words(text: str) -> list[str]:
    original = _WORD.findall(text)
    tokens = [t.lower() for t in original]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        pair = tuple(tokens[i:i + 2])
        if pair in _TWO_WORD_ABBREVIATIONS:
            out += _TWO_WORD_ABBREVIATIONS[pair]
            i += 2
            continue
        word = tokens[i]
        if word in ABBREVIATIONS:
            out.append(ABBREVIATIONS[word])
        elif word == "maja":
            after_number = i > 0 and tokens[i - 1].isdigit()
            out.append("maj" if after_number or not original[i][0].isupper() else "maja")
        else:
            out += lemma(word, _preference(tokens, i)).split()
        i += 1
    return out


def normalize(text: str) -> str:
    """Letters and digits only, lower case, lemmatized with the neighbours' help, joined by single spaces."""
    return " ".join(words(text))
