"""The named checks a generated QA pair goes through before a reviewer reads it, each able to fail.

A small model asked for a factoid pair copies a sentence as the "question", answers with a clause, asks for a
heading's name that the question already holds ("What is the name of the Apache License?" -> "Apache License"),
asks about "the given text" or "the library", or gives an answer the passage does not bear out; and it calls
its own pair supported. These checks read the texts, and two of them ask the generator again:

    question_form       the question ends in "?" and is not a sentence of the passage copied out
    short_answer        the answer is a factoid: at most MAX_ANSWER_WORDS words
    answer_grounded     the answer's content words are in the passage (at least MIN_GROUNDED), or it is found there
    answer_in_question  the question holds its answer: found as it stands, or MIN_GROUNDED of its content words
    self_contained      the question points at its source ("the given text", "this project", "in the passage") or
                        asks about a generic "the library" / "the -x option" without naming anything
    round_trip          the generator, given the passage and the question, gives the answer back (string match)
                        (lclab.qa.generate; a pair whose answer does not come back is wrong or ambiguous)
    closed_book         the generator, given the question alone, does NOT give the answer back (a pair answerable
                        without the passage tests no reading)
    duplicate           no earlier pair of the set has the same answer or nearly the same question

Whether a failed check removes the pair (to qa_rejected.csv) or only flags it for the reviewer is `REMOVES`:
decided by each check's measured precision against the reviews' reasons (docs/your-documents.md). Each check
has its own message (`PROBLEMS`), which the generator is told when every pair it wrote failed one.
"""

from __future__ import annotations

import re

import pandas as pd

from ..scoring.baselines import content_overlap, content_words
from ..scoring.score import Score
from ..text.normalize import contains_answer, normalize

MAX_ANSWER_WORDS = 12
MIN_GROUNDED = 0.75
NEAR_QUESTION = 0.7  # content-word Jaccard above which two questions of a set ask the same
TEXT_CHECKS = ("question_form", "short_answer", "answer_grounded", "answer_in_question", "self_contained")
PROBES = ("round_trip", "closed_book")
CHECKS = (*TEXT_CHECKS, *PROBES, "duplicate")
# Checks whose failure removes a pair; the others flag it for the reviewer (see the module docstring).
REMOVES = frozenset({*TEXT_CHECKS, "round_trip", "duplicate"})
PROBLEMS = {
    "question_form": "a question must be a real question ending in '?', in your own words, not a sentence copied "
                     "from the passage",
    "short_answer": f"an answer must be a short phrase of at most {MAX_ANSWER_WORDS} words copied from the passage, "
                    "not a sentence",
    "answer_grounded": "an answer must use the passage's own words",
    "answer_in_question": "a question must not contain its own answer (do not ask for the name of a heading or a "
                          "title the question already says)",
    "self_contained": "a question must name what it asks about, for a reader who has not seen the passage: never "
                      "'the text', 'the passage', 'this document', 'the library' or 'the project'",
    "round_trip": "the passage must give the answer to the question plainly",
    "closed_book": "the question must need the passage: not be answerable from general knowledge",
    "duplicate": "each question must ask about a different fact"}

_POINTS_AT_SOURCE = re.compile(
    r"\b(?:the|this|these|that)\s+(?:given\s+|provided\s+|above\s+|following\s+|preceding\s+|previous\s+|same\s+)?"
    r"(?:text|passage|document|context|excerpt|extract|snippet|paragraph|section|chapter|page|essay|article)s?\b"
    r"|\bmentioned (?:above|here|earlier|in the)\b|\b(?:above|below)\b\s*\?$",
    re.IGNORECASE)
# "this project", "these options": in a question read on its own, "this" points at the source it was written from
_DEICTIC = re.compile(r"\b(?:this|these)\s+[a-z]\w*", re.IGNORECASE)
_GENERIC = re.compile(
    r"\bthe\s+(?:library|project|tool|program|package|software|module|application|app|script|guide|manual|book"
    r"|site|company|system|framework|maintainer|function|command|option|flag|method|class|file|directory"
    r"|page|process|procedure|rule|release|version|team|group|list)s?\b"
    r"|(?:^|\s)--?[A-Za-z][\w-]*\b", re.IGNORECASE)
_GENERIC_NOUNS = {"library", "project", "tool", "program", "package", "software", "module", "application", "app",
                  "script", "guide", "manual", "book", "site", "company", "system", "framework", "maintainer",
                  "author", "function", "command", "option", "flag", "method", "class", "name", "file", "text",
                  "passage", "document", "section", "way", "example", "user", "users", "one", "it"}
_OWNER = re.compile(r"\b(?:of|in|for|by|from|with)\s+(?!(?:the|a|an|this|that|these|its|their|it)\b)([a-z][\w.+-]{1,})")
_QUESTION_WORDS = {"what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "does",
                   "do", "did", "can", "in", "on", "according", "i", "the", "a", "an"}


def _folded(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def question_form(question: str, passage: str) -> bool:
    body = question.strip()
    if not body.endswith("?"):
        return False
    words = _folded(body)
    return len(words.split()) >= 3 and words not in _folded(passage)


def short_answer(answer: str) -> bool:
    return 0 < len(answer.split()) <= MAX_ANSWER_WORDS


def answer_grounded(answer: str, passage: str, found_as_is: bool) -> bool:
    overlap = content_overlap(answer, passage)
    return bool(found_as_is) or (overlap is not None and overlap >= MIN_GROUNDED)


def answer_in_question(question: str, answer: str) -> bool:
    """True when the question does NOT hold its answer (the check passes)."""
    overlap = content_overlap(answer, question)
    return not (contains_answer(question, answer) or (overlap is not None and overlap >= MIN_GROUNDED))


def _anchored(question: str, title: str) -> bool:
    """Whether the question names something: a proper name or identifier after its first word, a quoted term, a
    number, or a content word of the document's title."""
    words = re.findall(r"[\w.+#/-]+", question)
    named = [w for w in words[1:] if (w[:1].isupper() and w.lower() not in _QUESTION_WORDS)
             or re.search(r"[a-z][A-Z]|_|\d|\.\w|/|\w-\w", w)]
    quoted = re.search(r"[\"'`“‘][^\"'`”’]{2,}[\"'`”’]", question)
    # "the -x option of rsync": a lower-case name after a preposition, where no generic noun stands
    owner = [w for w in _OWNER.findall(question) if w.lower() not in _GENERIC_NOUNS]
    return bool(named or quoted or owner or (content_words(title) & content_words(question) if title else False))


def self_contained(question: str, title: str = "") -> bool:
    """True when a reader who has not seen the passage can understand the question (the check passes)."""
    if _POINTS_AT_SOURCE.search(question) or _DEICTIC.search(question):
        return False
    return not _GENERIC.search(question) or _anchored(_GENERIC.sub(" the it ", question), title)


def same_answer(reply: str | None, gold: str) -> bool:
    """Whether a model's short reply gives the gold answer back: one holds the other on word boundaries, or the
    reply holds MIN_GROUNDED of the gold's content words (a string match; no judge)."""
    if not reply or not normalize(reply):
        return False
    if contains_answer(reply, gold) or contains_answer(gold, reply):
        return True
    overlap = content_overlap(gold, reply)
    return overlap is not None and overlap >= MIN_GROUNDED


def text_checks(question: str, answer: str, passage: str, title: str = "") -> dict[str, bool]:
    """Each text check's result (True: passes), in TEXT_CHECKS order."""
    return {"question_form": question_form(question, passage), "short_answer": short_answer(answer),
            "answer_grounded": answer_grounded(answer, passage, contains_answer(passage, answer)),
            "answer_in_question": answer_in_question(question, answer),
            "self_contained": self_contained(question, title)}


def first_text_failure(question: str, answer: str, passage: str, title: str = "") -> str | None:
    return next((name for name, ok in text_checks(question, answer, passage, title).items() if not ok), None)


def pair_checks(row: dict) -> Score:
    """A pair's checks as a Score: value True when no removing check fails; explanation = the first removing check
    it fails (in CHECKS order); metadata = each check's result (None: not run, e.g. a probe the pair never reached)."""
    results: dict = text_checks(row["question"], row["answer"], row["passage"], row.get("title") or "")
    for name in (*PROBES, "duplicate"):
        value = row.get(f"checks_{name}")
        results[name] = None if value is None or (isinstance(value, float) and pd.isna(value)) else bool(value)
    failed = next((name for name in CHECKS if name in REMOVES and results[name] is False), None)
    return Score(failed is None, answer=row["question"], explanation=failed, metadata=results)


def flags(results: dict) -> str:
    """The checks that failed but only flag, ";"-joined."""
    return ";".join(name for name in CHECKS if name not in REMOVES and results.get(name) is False)


def duplicates(pairs: pd.DataFrame) -> pd.Series:
    """Per pair, False when an earlier pair of the set has the same answer or nearly the same question."""
    seen_answers, seen_questions, out = set(), [], []
    for question, answer in zip(pairs["question"], pairs["answer"]):
        words = content_words(question)
        near = any(words and len(words & w) / len(words | w) >= NEAR_QUESTION for w in seen_questions)
        out.append(not (normalize(answer) in seen_answers or near))
        seen_answers.add(normalize(answer))
        seen_questions.append(words)
    return pd.Series(out, index=pairs.index, dtype=object)


def apply_checks(pairs: pd.DataFrame, earlier: pd.DataFrame | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """(pairs passing every removing check, the removed ones with `failed_check`, how many each check removed).
    Every pair gets `checks_<name>` per check and `flags`. A duplicate is of an earlier pair that passes the other
    checks, in this set or in `earlier` (the review file's pairs from earlier runs)."""
    records = [{**r, "checks_duplicate": None} for r in pairs.to_dict("records")]
    passing = [i for i, r in enumerate(records) if pair_checks(r).value]
    before = earlier[["question", "answer"]] if earlier is not None and len(earlier) else pd.DataFrame(
        columns=["question", "answer"])
    candidates = pd.concat([before, pairs.iloc[passing][["question", "answer"]]], ignore_index=True)
    for i, unique in zip(passing, duplicates(candidates).iloc[len(before):]):
        records[i]["checks_duplicate"] = unique
    scores = [pair_checks(r) for r in records]
    checked = pd.DataFrame([{**{f"checks_{c}": s.metadata[c] for c in CHECKS}, "failed_check": s.explanation,
                             "flags": flags(s.metadata)} for s in scores], index=pairs.index,
                           columns=[*(f"checks_{c}" for c in CHECKS), "failed_check", "flags"])
    pairs = pairs.drop(columns=[c for c in checked.columns if c in pairs.columns]).join(checked)
    failed = pairs["failed_check"]
    removed = {name: int((failed == name).sum()) for name in CHECKS if name in REMOVES}
    return pairs[failed.isna()], pairs[failed.notna()], removed


def first_failed(row: dict) -> str | None:
    """The first removing check the pair fails (in CHECKS order), or None when it passes all."""
    return pair_checks(row).explanation
