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
  "stanowi podstawę", "stanowi art. 5"), before a number ("mamy 30 dni") or after a subject it agrees with
  ("ustawa stanowi, że ...", "która mieszka", "mieszkańcy stali w kolejce"; after a noun, a finite verb only
  where corpus frequencies say the form usually is that verb: "urząd działa", but "wywóz śmieci");
- **a genitive completes the noun before it**: an adjective reading that agrees only with the noun before it
  yields to a genitive noun ("utrata prawa jazdy": prawo, not prawy);
- **abbreviations** of legal and administrative texts are read as the words they stand for, so either spelling
  matches the other: art. (artykuł), ust. (ustęp), pkt (punkt), poz. (pozycja), zł (złoty), Dz.U. (dziennik
  ustaw);
- **"maja"** is May's genitive after a number ("31 maja"), the name Maja when capitalized elsewhere, and May
  otherwise (lower-case "maja" in official texts is the month).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .polish import lemma, noun_tags, readings, tag_rank
from .simplemma_pl import usual_lemma

ABBREVIATIONS = {"art": "artykuł", "ust": "ustęp", "pkt": "punkt", "poz": "pozycja", "zł": "złoty"}
_TWO_WORD_ABBREVIATIONS = {("dz", "u"): ["dziennik", "ustawa"]}
_VERB = {"fin", "impt", "praet", "inf", "bedzie", "imps", "winien"}
_ADJECTIVE = {"adj", "ppas", "pact"}
_NOMINAL = {"subst", "depr", "adj", "num", "ppron12", "ppron3", "ger"}
# Relative pronouns: in the nominative they are the subject of the verb after them ("która mieszka").
_RELATIVE = {"który", "jaki", "kto", "co"}
_WORD = re.compile(r"[^\W_]+")
# A clause ends at a comma or any stronger stop, and at a full stop that ends a sentence (a capital after it; an
# abbreviation's dot is followed by what it abbreviates the context of: "art. 5", "ust. 2").
_CLAUSE = re.compile(r"[,;:!?()\[\]\"„”«»–—]|\.\s+(?=[A-ZĄĆĘŁŃÓŚŹŻ])")


@lru_cache(maxsize=200_000)
def _tags(word: str) -> tuple[str, ...]:
    """Morfeusz's tags of a word: asked once per word, though each word is its neighbours' neighbour too. An
    abbreviation has the tags of the word it stands for ("stanowi art. 5": art. is a noun, the object)."""
    return tuple(tag for _, tag, _ in readings(ABBREVIATIONS.get(word, word)))


@lru_cache(maxsize=200_000)
def _current_tags(word: str) -> tuple[str, ...]:
    """The tags of the readings a word alone is read from (not the archaic "umowy", an adjective, where the noun
    reads the form)."""
    return tuple(tag for _, tag, _ in readings(ABBREVIATIONS.get(word, word), current=True))


def _features(tag: str) -> tuple[set[str], set[str], set[str]] | None:
    """(numbers, cases, genders) of a nominal tag ("adj:sg:nom.voc:f:pos"), or None for a tag without them."""
    parts = tag.split(":")
    if len(parts) < 4 or parts[0] not in _ADJECTIVE | {"subst", "depr"}:
        return None
    return set(parts[1].split(".")), set(parts[2].split(".")), set(parts[3].split("."))


def _agree(a: str, b: str) -> bool:
    fa, fb = _features(a), _features(b)
    return fa is not None and fb is not None and all(x & y for x, y in zip(fa, fb))


def _agreeing_sides(tokens: list[str], i: int) -> set[int]:
    """The sides (-1 before, 1 after) on which word i, read as an adjective, agrees with a noun beside it (or one
    further, across an adjective that agrees too)."""
    own = [t for t in _current_tags(tokens[i]) if t.split(":")[0] in _ADJECTIVE]
    sides = set()
    for step in (-1, 1) if own else ():
        for distance in (1, 2):
            j = i + step * distance
            if not 0 <= j < len(tokens):
                break
            nouns = [t for t in _tags(tokens[j]) if t.startswith(("subst:", "depr:"))]
            if any(_agree(a, n) for a in own for n in nouns):
                sides.add(step)
                break
            between = [t for t in _tags(tokens[j]) if t.split(":")[0] in _ADJECTIVE]
            if not any(_agree(a, b) for a in own for b in between):
                break  # only an agreeing adjective lets agreement reach one word further
    return sides


def _cases(tag: str) -> set[str]:
    parts = tag.split(":")
    return set(parts[2].split(".")) if len(parts) > 2 else set()


def _noun_evidence(tags: tuple[str, ...], following: tuple[str, ...]) -> bool:
    """Word i read as a noun by what follows it: a genitive (its complement: "kopię umowy", "kasa chorych",
    "dni roboczych") or an adjective agreeing with it ("ogniwa fotowoltaiczne", "dzień roboczy")."""
    nouns = [t for t in tags if t.startswith(("subst:", "depr:"))]
    if not nouns:
        return False
    # a word that can be a preposition is one ("od" is no genitive of "oda")
    genitive = not any(tag_rank(t) == 1 for t in following) and any(
        t.split(":")[0] in _NOMINAL and "gen" in _cases(t) for t in following)
    agreeing = any(_agree(n, a) for n in nouns for a in following if a.split(":")[0] in _ADJECTIVE)
    return genitive or agreeing


def _subject_before(tokens: list[str], i: int, verbs: list[str]) -> bool:
    """Whether the word before i is a subject one of i's verb readings agrees with: a relative pronoun in the
    nominative ("która mieszka"); a nominative noun of the same number and gender before a past tense
    ("mieszkańcy stali"); or one of the same number before a finite verb of the third person where the verb is
    what the form usually is (simplemma's corpus frequencies: "urząd działa", but "wywóz śmieci", "tydzień
    ciąży": a genitive completing the noun). A noun after a preposition is its object, no subject."""
    if i == 0 or (i > 1 and any(t.startswith("prep:") for t in _tags(tokens[i - 2]))):
        return False
    before = tokens[i - 1]
    relative = lemma(before) in _RELATIVE
    subjects = [t for t in _tags(before) if "nom" in _cases(t) and (
        t.startswith(("subst:", "depr:")) or relative and t.startswith("adj:"))]
    usual = bool(subjects) and _usually(tokens[i], _VERB)
    for verb in verbs:
        parts = verb.split(":")
        for subject in subjects:
            s_parts = subject.split(":")
            same_number = parts[1] in s_parts[1].split(".")
            if parts[0] == "fin" and parts[2] == "ter" and same_number and (relative or usual):
                return True
            if parts[0] == "praet" and same_number and set(parts[2].split(".")) & set(s_parts[3].split(".")):
                return True
    return False


def _usually(word: str, kinds: set[str]) -> bool:
    """Whether simplemma's corpus frequencies read the form as one of its readings of these parts of speech."""
    return usual_lemma(word) in {lem.split(":")[0].lower() for lem, tag, _ in readings(word)
                                 if tag.split(":")[0] in kinds}


def _verb_evidence(tokens: list[str], i: int) -> bool:
    """Whether word i, which can be a verb, is read as one: the neighbours must say so, a following word alone
    does not. A verb reading needs an infinitive after it (a modal: "może złożyć"); or, where the word is no
    conjunction or particle ("lub", "może" stay what they usually are) and no noun that what follows completes
    (a genitive, an agreeing adjective: `_noun_evidence`), a subject before it it agrees with ("ustawa stanowi,
    że ...", "urząd działa", "która mieszka"), or, unless it can be the genitive complement of a noun before it
    ("Dzienniku Ustaw"), an object after it ("mają prawo", "złóż wniosek", "stanowi podstawę", "stanowi art. 5")
    or a number ("mamy 30 dni"). A genitive after a noun followed by an accusative is the verb with its object
    ("rodzice mamy prawo")."""
    tags = _tags(tokens[i])
    verbs = [t for t in tags if t.split(":")[0] in _VERB]
    if not verbs:
        return False
    following = _tags(tokens[i + 1]) if i + 1 < len(tokens) else ()
    if any(t.startswith("inf") for t in following):
        return True
    if any(tag_rank(t) == 1 for t in tags) or _noun_evidence(tags, following):
        return False
    if _subject_before(tokens, i, verbs):
        return True
    before = _tags(tokens[i - 1]) if i > 0 else ()
    complement = any(t.startswith("subst:") for t in before) and any(
        t.startswith("subst:") and "gen" in _cases(t) for t in tags)
    if complement and not any(t.split(":")[0] in _NOMINAL and "acc" in _cases(t) for t in following):
        return False  # a genitive right after a noun is that noun's complement, unless an object follows
    return any(t.split(":")[0] in _NOMINAL or t.startswith(("dig", "num")) for t in following) or bool(
        tokens[i + 1:i + 2] and tokens[i + 1].isdigit())


def _genitive_after_noun(tokens: list[str], i: int) -> bool:
    """Whether word i can be a genitive noun completing the noun before it, and is not usually the adjective it
    can also be (simplemma's corpus frequencies): "utrata prawa jazdy" is law's, not the adjective "prawy"
    agreeing with utrata; "pieróg ruski" keeps its adjective."""
    return i > 0 and any(t.startswith(("subst:", "depr:")) for t in _tags(tokens[i - 1])) and any(
        "gen" in _cases(t) for t in noun_tags(tokens[i])) and not _usually(tokens[i], {"adj"})


def _preference(tokens: list[str], i: int) -> str | None:
    """The kind of reading word i's neighbours ask for. An adjective agreeing with a noun after it ("prawa
    ręka") is one; agreeing only with the noun before it, it yields to a genitive complement of that noun
    ("utrata prawa") and to a verb that noun is the subject of ("mieszkańcy stali w kolejce")."""
    sides = _agreeing_sides(tokens, i)
    verbs = [t for t in _tags(tokens[i]) if t.split(":")[0] in _VERB]
    if sides == {-1} and (_genitive_after_noun(tokens, i) or _subject_before(tokens, i, verbs)):
        sides = set()
    if sides:
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
