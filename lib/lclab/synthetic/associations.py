"""Needles without shared words, in NoLiMa's style (Modarressi et al. 2025): a character's name in a sentence
that answers the question only through a one-hop association (the Colosseum -> Rome), never through the
question's own words; and the literal control, the same fact phrased to share the question's keyword.

    association          "Kofi took a picture of the Colosseum at sunrise."  Which character has been to Rome?
    association_literal  "Kofi took a picture of an old arena in Rome at sunrise."  (same question)

The needle set (data/associations/needles.csv) and the names (names.txt) were written for this lab; their
README says how. Haystack i of both tasks holds the same pair, the same name and the same filler, so the two are
compared haystack by haystack. Every sample records the content-word overlap of its question with its needle
(`lclab.scoring.baselines.content_overlap`: the share of the question's content words found in the needle).
"""

from __future__ import annotations

import random
import re

import pandas as pd

from ..paths import REPO
from ..prompts import render
from ..runs.samples import Sample
from ..scoring.baselines import content_overlap
from .haystack import filler
from .once import built_once
from .tasks import Source, fit_prompt, make_sample

NEEDLES = REPO / "data" / "associations" / "needles.csv"
NAMES = REPO / "data" / "associations" / "names.txt"


@built_once(1)
def needle_set() -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The written pairs and names, checked: every needle and literal holds {name} once, and every question its
    keyword (what the literal needle shares with it and the associative one must not)."""
    pairs = pd.read_csv(NEEDLES, dtype=str, keep_default_na=False)
    names = tuple(n.strip() for n in NAMES.read_text(encoding="utf-8").splitlines() if n.strip())
    for r in pairs.itertuples():
        where = f"{NEEDLES.name}, pair {r.pair_id!r}"
        if r.needle.count("{name}") != 1 or r.literal.count("{name}") != 1:
            raise ValueError(f"{where}: needle and literal must each hold {{name}} once")
        if r.keyword.lower() not in r.question.lower() or r.keyword.lower() not in r.literal.lower():
            raise ValueError(f"{where}: the keyword {r.keyword!r} must be in the question and the literal needle")
        if r.keyword.lower() in r.needle.lower():
            raise ValueError(f"{where}: the associative needle holds the question's keyword {r.keyword!r}")
    if len(names) < 2:
        raise ValueError(f"{NAMES}: at least two names are needed")
    return pairs, names


def _any_of(words: list[str]) -> re.Pattern:
    """One pattern for "the sentence names any of these words" (a haystack's every sentence is asked)."""
    return re.compile("|".join(rf"\b{re.escape(w)}\b" for w in words), re.I)


def association_sample(task: str, i: int, budget: int, depth: float, source: Source) -> Sample:
    """Haystack i of an association task: pair i (in turn) with a seeded name; the haystack leaves out every
    sentence naming a character of the set, the question's keyword or the needle's cue (NoLiMa filters its
    haystacks the same way, so the needle is the only sentence that can answer). Unanswerable: the needle left
    out, the target the refusal."""
    pairs, names = needle_set()
    pair = pairs.iloc[i % len(pairs)]
    answerable = source.answerable
    rng = random.Random(f"{source.seed}:association:{i}")  # one draw for both tasks: the literal control is paired
    name = rng.choice(names)
    needle = (pair.needle if task == "association" else pair.literal).format(name=name)
    named = _any_of([*names, pair.keyword, pair.cue])
    haystack = [s for s in filler(source.corpus, rng) if not named.search(s)]
    build = lambda context: render("synthetic_association", context=context, question=pair.question,  # noqa: E731
                                   if_absent=source.if_absent)
    needles = [(depth, needle)] if answerable else []
    prompt, tokens = fit_prompt(haystack, needles, build, source.count, budget, source.closed_book)
    return make_sample(task, i, budget, depth, prompt, tokens, [name] if answerable else [], source.closed_book,
                       pair_id=pair.pair_id, needle=needle, question=pair.question, answerable=answerable,
                       question_overlap=content_overlap(pair.question, needle))
