"""Polish lemmas of single words, for rule-based answer checks (whole phrases, read with their neighbours:
`lclab.text.polish_phrases.normalize`).

    >>> lemma("powiedział"), lemma("jej"), lemma("lat")
    ('powiedzieć', 'ona', 'rok')

A rule phrase and an answer are lemmatized by the same functions, so whatever reading is chosen for an ambiguous
form is chosen on both sides, and a phrase matches every inflected form of itself ("opłaty skarbowej" matches
"opłata skarbowa"). Where a word alone is ambiguous in a way its neighbours settle (an adjective agreeing with a
noun, a verb before its object), `lemma` takes the kind of reading they ask for (`prefer`).

Morfeusz 2 with the SGJP dictionary (both in the `morfeusz2` wheel) lists the readings of a form; archaic ones
are dropped when others exist, and so is an adjective used as a noun where the adjective alone reads the form
too; a pronoun is kept first, then a comparative or superlative adjective ("lepsza" is dobry, like "lepszy", not
the noun "lepsza"), then the best part of speech. The lemma is then chosen by the word, never by the form:
lemmas of one part of speech whose forms all belong to another's (the plural-only "prace" in "praca"; "ojcowie"
in "ojciec"; "odsetki" in "odsetka" and "odsetek") are one word, and every form of every lemma in such a group
gets the group's one name: the lemma with unqualified readings, then the one simplemma's Polish lemma table
(built from corpus frequencies) names for most of the group's forms ("ma" is "mieć", not the rare "maić"), then
the largest paradigm, then the first in alphabetical order. So all the forms of one word agree, whichever form
an answer uses. Words that merely share a few forms stay apart ("prawo" is law, not "prawy"; "życie" life, not
rye; "latem" is "lato"): a shared form is read as the word whose paradigm it fills more cells of (then
simplemma's choice, then its headword), and a few shared forms are fixed by usage ("lat" after a number is
years, "maja" is May's). Forms Morfeusz does not know get simplemma's lemma, or stay as they are.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from functools import lru_cache

from .simplemma_pl import usual_lemma

# Which reading of an ambiguous form to keep. The choice depends on the kinds of
# reading a form has, never on the form itself, so that the forms of one word
# agree ("potwierdzający" and "potwierdzającym" are both the adjective):
#  1. a personal pronoun ("jej" is her, not the interjection), unless the form is a pronoun only after a
#     preposition: "nie" would otherwise always be "on";
#  2. the best part of speech below: closed classes first ("albo" is "or", not the vestment "alba"), nouns
#     before verbs and gerunds ("pytanie" is the question, not asking), adjectives before participles; the
#     imperative late, or "lub" (or) would be "like!".
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
# number is years far more often than summers (and so are the other forms the two
# words share); "maja" is the month's genitive, not the name or the illusion;
# "być" is to be, not a form of "bycie".
_USUAL = {**dict.fromkeys(["lata", "lat", "latach", "latami", "latom"], "rok"), "maja": "maj", "być": "być"}
_MARGINAL = {"daw.", "przest.", "rzad.", "gwar.", "arch.", "reg."}  # SGJP's archaic, rare, dialectal
_LAST = 10

_morfeusz_lock = threading.Lock()  # one analyser, shared by notebook worker threads


@lru_cache(maxsize=1)
def _analyser():
    import morfeusz2

    return morfeusz2.Morfeusz()


def _pronoun_lemma(tags: list[str]) -> str:
    """SGJP files every third-person pronoun under "on"; name the gender when the form has one ("jej", "ją":
    feminine singular only, "ona", as a reader lemmatizes them); forms shared by several genders stay "on"."""
    numbers = {t.split(":")[1] for t in tags}
    genders = {g for t in tags for g in t.split(":")[3].split(".")}
    if numbers == {"pl"}:
        return "oni"
    return {"f": "ona", "n": "ono"}.get(next(iter(genders)), "on") if numbers == {"sg"} and len(genders) == 1 else "on"


def _rank(tag: str) -> int:
    return _RANK.get(tag.split(":")[0], _LAST)


def _is_pronoun(tag: str) -> bool:
    parts = tag.split(":")
    return parts[0] in _PRONOUNS and parts[-1] != "praep"  # "praep": only after a preposition


# The readings a neighbour can ask for (lclab.text.polish_phrases): an adjective that agrees with a noun beside
# it (a participle only where the form has no adjective reading), or a verb before what it governs.
_PREFERRED = {"adj": (("adj",), ("ppas", "pact")), "verb": (("fin", "impt", "praet", "inf", "bedzie", "imps",
                                                                "winien"),)}


@lru_cache(maxsize=200_000)
def lemma(word: str, prefer: str | None = None) -> str:
    """The lemma of one lower-case word (a form Morfeusz does not know comes back as simplemma has it); `prefer`
    ("adj", "verb") reads it as that kind of word where it can be one. An abbreviation's may be a phrase ("np")."""
    return _lemma(word, prefer).replace("_", " ")


def _analyse(form: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(lemma id, tag, qualifiers) of each reading of the form's first segment: a word may split into segments
    ("zrobiłem" = "zrobił" + "em"); the first carries the lexical meaning, clitics after it are dropped."""
    with _morfeusz_lock:
        readings = _analyser().analyse(form)
    return [(r[2][1], r[2][2], _qualifiers(r[2][4])) for r in readings if r[0] == 0 and r[2][2] != "ign"]


def _qualifiers(raw: list[str]) -> tuple[str, ...]:
    # SGJP joins several qualifiers into one string ("filoz.,rel."): split on any separator.
    return tuple(q for item in raw for q in re.split(r"[,;\s]+", item) if q)


def _current_readings(word: str) -> list[tuple[str, str, tuple[str, ...]]]:
    # Readings SGJP marks as archaic, rare or dialectal lose to any other ("czwartki" is Thursdays, not "czwartka").
    readings = _analyse(word)
    return [r for r in readings if not set(r[2]) & _MARGINAL] or readings


def readings(form: str, current: bool = False) -> list[tuple[str, str, tuple[str, ...]]]:
    """Morfeusz's (lemma id, tag, SGJP qualifiers) of a lower-case form's first segment; `current`: those `lemma`
    chooses among (archaic, rare and dialectal ones only where the form has no other)."""
    return _current_readings(form) if current else _analyse(form)


def noun_tags(form: str) -> list[str]:
    """The tags of the form's readings as a noun declined as a noun (not an adjective used as one, "ruska")."""
    return [tag for _, tag, _ in _without_adjectival_nouns(_current_readings(form), True) if tag.startswith("subst:")]


def tag_rank(tag: str) -> int:
    """The rank of a Morfeusz tag's part of speech in choosing a lemma (lower wins; see _RANK)."""
    return _rank(tag)


def forms_of(lemma_id: str, rank: int) -> set[str]:
    """Every lower-case form Morfeusz generates for a lemma id, among readings of that rank."""
    return set(_paradigm(lemma_id, rank))


def is_homograph(form: str, rank: int) -> bool:
    """Whether the form's readings of this rank belong to words that are not one word ("prawa": law's and the
    right hand's): its lemma is then one of theirs by rule (see _lemma), not every one's."""
    return len({_group_name(lem, rank) for lem, tag, _ in _current_readings(form) if _rank(tag) == rank}) > 1


def has_usual_reading(form: str) -> bool:
    """Whether the form's lemma is fixed by usage rather than by rank ("lata" is years, not summers)."""
    return form in _USUAL


def reading_rank(word: str) -> int | None:
    """The rank of the part of speech a word's lemma is chosen from (None when Morfeusz does not know it,
    0 for a personal pronoun): a form of a noun that is also a conjunction is read as the conjunction."""
    readings = _current_readings(word)
    if not readings:
        return None
    if any(_is_pronoun(tag) for _, tag, _ in readings):
        return 0
    if any(_is_degree(tag) for _, tag, _ in readings):
        return _RANK["adj"]
    return min(_rank(tag) for _, tag, _ in readings)


def _slots(tag: str) -> int:
    """How many (number, case) cells of its paradigm a reading fills ("subst:pl:nom.acc.voc:n" fills 3)."""
    parts = tag.split(":")
    return len(parts[1].split(".")) * len(parts[2].split(".")) if len(parts) > 2 else 1


def _is_degree(tag: str) -> bool:
    """A comparative or superlative adjective, read as its adjective whatever noun or verb shares the form
    ("lepsza" the noun, "gorszy" of gorszyć): every degree meets its positive ("lepsza" is dobry, like "lepszy")."""
    parts = tag.split(":")
    return parts[0] == "adj" and parts[-1] in ("com", "sup")


def _name(lemma_id: str) -> str:
    return lemma_id.split(":")[0].lower()  # "budowlany:A" -> "budowlany"


def _preferred(word: str, prefer: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """The form's readings of the preferred kind (current ones first; SGJP marks some adjectives as rarer than
    the participle, "uprawniona"), or [] when it has none."""
    for kinds in _PREFERRED[prefer]:
        chosen = [r for r in _analyse(word) if r[1].split(":")[0] in kinds]
        if chosen:
            return [r for r in chosen if not set(r[2]) & _MARGINAL] or chosen
    return []


def _lemma(word: str, prefer: str | None = None) -> str:
    if word.isdigit() or len(word) == 1:
        return word  # single letters are symbols here ("kategoria B", "załącznik A")
    if word in _USUAL:
        return _USUAL[word]
    readings = (prefer and _preferred(word, prefer)) or _without_adjectival_nouns(_current_readings(word))
    if not readings:
        return usual_lemma(word)
    pronouns = [(_name(lem), tag) for lem, tag, _ in readings if _is_pronoun(tag)]
    if pronouns:
        if pronouns[0][1].startswith("ppron3"):
            return _pronoun_lemma([tag for _, tag in pronouns if tag.startswith("ppron3")])
        return pronouns[0][0]
    degree = [lem for lem, tag, _ in readings if _is_degree(tag)]
    if degree:  # "większy" is a degree of both duży and wielki: one name for all such forms, not the first listed
        return min(_group_name(d, _RANK["adj"]) for d in degree)
    best = min(_rank(tag) for _, tag, _ in readings)
    # A form shared by words that are not one word (see _group_name) is read as a word SGJP marks no reading of
    # (a field's jargon, "karo" of card games, loses to "kara"; not between spellings, "pieróg", "pierog"), then
    # the word whose paradigm it fills more slots of ("prawa": law's genitive and plural, over the right hand's
    # nominative; "życie": life's three cases, over rye's locative), then the word simplemma's corpus frequencies
    # name for this form, then for more of its own forms ("karom" is kara's, like "karę"), then its headword.
    slots: dict[str, list] = {}
    for lem, tag, qualifiers in readings:
        if _rank(tag) == best:
            seen = slots.setdefault(_group_name(lem, best), [False, 0, 0])
            seen[0], seen[1] = seen[0] or not qualifiers, seen[1] + _slots(tag)
            seen[2] = max(seen[2], _own_votes(lem, best))
    usual = usual_lemma(word)
    words = len({unicodedata.normalize("NFKD", g).encode("ascii", "ignore") for g in slots})  # not spellings
    return max(slots, key=lambda g: (slots[g][0] or words == 1, slots[g][1], g == usual, slots[g][2], g == word,
                                     -list(slots).index(g)))


@lru_cache(maxsize=20_000)
def _own_votes(lemma_id: str, rank: int) -> int:
    """How many of the lemma's forms simplemma's table gives its group's name (a frequency of the word)."""
    return sum(usual_lemma(f) == _group_name(lemma_id, rank) for f in _paradigm(lemma_id, rank))


def _without_adjectival_nouns(readings: list, strict: bool = False) -> list:
    """Without the readings of an adjective used as a noun ("czysta": its every form is one of czysty's) where the
    adjective reads the form too ("czystych powietrzu", "środków trwałym": czysty, trwały, agreeing or not). A
    noun declined otherwise ("prawo": no adjective has "praw") keeps its reading, and so does an adjectival noun
    when another noun reads the form too: dropping it would hand the form to that other noun ("luty" is February,
    not the plural of lut, solder), so the two nouns are weighed as any two nouns are (unless `strict`)."""
    adjectives = [lem for lem, tag, _ in readings if tag.startswith("adj:")]
    if not adjectives:
        return readings
    forms = frozenset().union(*(_paradigm(a, _RANK["adj"]) for a in adjectives))
    kept = [r for r in readings if not (r[1].startswith("subst:") and _paradigm(r[0], _RANK["subst"]) <= forms)]
    return readings if not strict and any(r[1].startswith("subst:") for r in kept) else kept


_groups: dict[tuple[str, int], str] = {}  # (lemma id, rank) -> the name of its group


@lru_cache(maxsize=20_000)
def _paradigm(lemma_id: str, rank: int) -> frozenset[str]:
    with _morfeusz_lock:
        return frozenset(f.lower() for f, _, tag, _, _ in _analyser().generate(lemma_id) if _rank(tag) == rank)


def _one_word(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two lemmas are one word when one's forms all belong to the other: a plural-only lemma ("prace", "ojcowie",
    "odsetki") inside its singular's paradigm. Words that merely share a few forms stay apart ("prawo" and
    "prawy", "życie" and "żyto", "lato" and "rok", "Kasia" and "kasa")."""
    return a <= b or b <= a


_MAX_GROUP = 40  # lemmas; a larger group stops growing (never seen on SGJP's common words)


def _group_name(lemma_id: str, rank: int) -> str:
    """The one name of the group of lemmas of this rank that share forms with `lemma_id`, transitively."""
    if (lemma_id, rank) in _groups:
        return _groups[(lemma_id, rank)]
    members: dict[str, tuple[bool, int]] = {}  # lemma id -> (has an unqualified reading, paradigm size)
    all_forms: set[str] = set()
    todo = [lemma_id]
    while todo and len(members) < _MAX_GROUP:
        lem = todo.pop()
        if lem in members:
            continue
        forms = _paradigm(lem, rank)
        all_forms |= forms
        unqualified = False
        for form in forms:
            for other, tag, qualifiers in _analyse(form):
                if _rank(tag) != rank:
                    continue
                if other == lem:
                    unqualified = unqualified or not qualifiers
                elif other not in members and _one_word(forms, _paradigm(other, rank)):
                    todo.append(other)
        members[lem] = (unqualified, len(forms))
    votes = Counter(usual_lemma(form) for form in all_forms)
    name = _name(min(members, key=lambda m: (not members[m][0], -votes.get(_name(m), 0), -members[m][1],
                                             _name(m), m)))
    for member in members:
        _groups[(member, rank)] = name
    return name
