"""Synthetic long-context tasks in the style of RULER: seeded, any length, scored by string match (no judge).

Every task builds one `Sample` per (sample index, length, depth): the exact prompt, the target strings, and
metadata (task, cluster, length, depth, the prompt's tokens, the metric). A sample index is one haystack (its
filler order, keys and values): the same haystack is read at every length and depth, so it is the cluster.

    needle_single      one keyed needle (a number, a UUID or a word, by `value_kinds`)
    needle_multikey    the same, among three needles with other keys (distractors)
    needle_multivalue  four needles with one key: every value is asked for
    needle_multiquery  four needles with four keys: every value is asked for
    variables          variable tracking: a chain of four assignments from one value; every name is asked for
    common_words       a numbered word list: the 10 words repeated most often (no haystack, no depth)
    frequent_words     a coded text drawn from a Zipf law: the 3 most frequent coded words (no depth)
    qa                 a validated QA pair's passage as the needle in the haystack (the user's own documents)
    association        a name tied to the question by a one-hop association, no shared word (associations.py)
    association_literal  the same fact phrased with the question's keyword: association's control

With `unanswerable_share`, the tasks in ABSTAIN_TASKS get haystacks of their own whose asked needles are left
out, and every prompt of those tasks (answerable too) says what to reply when the text does not hold it.
"""

from __future__ import annotations

import random
import string
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Callable

from ..prompts import render
from ..runs.samples import Sample
from ..scoring.refusal import refusal_cue
from ..scoring.score import Score, unscored
from ..text.normalize import contains_answer
from .haystack import corpus_words, filler, fit, fit_by

NEEDLE_TASKS = ("needle_single", "needle_multikey", "needle_multivalue", "needle_multiquery")
ASSOCIATION_TASKS = ("association", "association_literal")
TASKS = (*NEEDLE_TASKS, "variables", "common_words", "frequent_words", "qa", *ASSOCIATION_TASKS)
# Tasks whose question a text can fail to answer: their needles can be left out (variable tracking gives the
# value in its question, and the word tasks' text is the task).
ABSTAIN_TASKS = (*NEEDLE_TASKS, "qa", *ASSOCIATION_TASKS)
WITHOUT_DEPTH = ("common_words", "frequent_words")  # the whole context is the task: no needle to place
KINDS = {"numbers": "numbers", "uuids": "codes", "words": "words"}
Counter_ = Callable[[str], int]


@dataclass(frozen=True)
class Source:
    """What every sample of one haystack is drawn from and how it is asked, at any length and depth: the filler
    corpus, the seed, the model's token counter (`count`); `closed_book`: the question with no text; `if_absent`:
    what the prompt says to reply when the text does not hold the answer; not `answerable`: the needles asked for
    left out."""

    corpus: str
    seed: int
    count: Counter_
    closed_book: bool = False
    if_absent: str = ""
    answerable: bool = True


def metric_of(task: str) -> str:
    """"all": the share of the targets found in the reply; "part": 1 when any is (a QA pair's answers).
    An unanswerable sample's metric is "abstain" (make_sample): 1 when the reply says the text does not hold it."""
    return "part" if task == "qa" else "all"


def score(response: str | None, targets: list[str], metric: str) -> Score:
    """String match, case-insensitive; QA answers are compared normalized (articles, punctuation). The value
    is the share of targets found ("all", RULER's "string_match_all") or 1.0 when any is ("part"; RULER's
    "string_match_part" without the normalizing), or for an unanswerable sample 1.0 when the reply is a refusal
    ("abstain", lclab.scoring.refusal); unscored without a response."""
    if response is None:
        return unscored("no response")
    if metric == "abstain":  # the rule decides: the prompt asked for a refusal phrase
        return refusal_cue(response)
    if metric == "part":
        found = [t for t in targets if contains_answer(response, t)]
        return Score(float(bool(found)), answer=response, metadata={"found": found})
    # RULER's two rules (its eval/synthetic/constants.py): string_match_all is the lab's "all"; string_match_part
    # gives 1 when any reference is in the reply, compared lower-cased and never normalized.
    found = [t for t in targets if t.lower() in response.lower()]
    if metric == "string_match_part":
        return Score(float(bool(found)), answer=response, metadata={"found": found})
    return Score(len(found) / len(targets), answer=response, metadata={"found": found})


def _value(kind: str, rng: random.Random, words: tuple[str, ...]) -> str:
    if kind == "numbers":
        return str(rng.randrange(1_000_000, 10_000_000))
    if kind == "uuids":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return rng.choice(words)


def fit_prompt(haystack, needles, build, count: Counter_, budget: int, closed_book: bool) -> tuple[str, int]:
    """The prompt at `budget` (`fit`), or closed-book: the same prompt with no text at all, needles included."""
    if closed_book:
        prompt = build("")
        return prompt, count(prompt)
    return fit(haystack, needles, build, count, budget)


def needle_sample(task: str, i: int, budget: int, depth: float, kind: str, source: Source) -> Sample:
    """One needle task's sample: keys and values drawn from (seed, task, i), so every length and depth of
    sample i holds the same needles in the same haystack (not `source.answerable`: the needles asked for left out,
    the others kept as distractors)."""
    corpus, answerable = source.corpus, source.answerable
    rng = random.Random(f"{source.seed}:{task}:{i}")
    words = corpus_words(corpus)
    keys = rng.sample(words, 4)
    many_values = task == "needle_multivalue"
    values = [_value(kind, rng, words) for _ in range(4)]
    asked = {"needle_single": 1, "needle_multikey": 1, "needle_multivalue": 4, "needle_multiquery": 4}[task]
    needle_keys = [keys[0]] * 4 if many_values else keys
    count_needles = 1 if task == "needle_single" else 4
    sentences = [render("synthetic_needle_sentence", kind=KINDS[kind], key=k, value=v)
                 for k, v in zip(needle_keys[:count_needles], values[:count_needles])]
    # The needle asked for sits at `depth`; the others at depths drawn for this sample (the same at every length).
    others = [rng.uniform(0, 100) for _ in sentences[1:]]
    needles = [(depth, sentences[0]), *zip(others, sentences[1:])]
    targets = values[:asked] if task != "needle_multikey" else values[:1]
    if not answerable:  # every needle whose value is asked for goes; a distractor key stays
        needles, targets = [n for n, v in zip(needles, values) if v not in targets], []
    question_keys = [keys[0]] if many_values or asked == 1 else keys[:asked]
    question = f"Which special {KINDS[kind]} are tied to " + ", ".join(f'"{k}"' for k in question_keys) + "?"
    build = lambda context: render("synthetic_needle", kind=KINDS[kind], context=context, question=question,  # noqa: E731
                                   if_absent=source.if_absent)
    prompt, tokens = fit_prompt(filler(corpus, rng), needles, build, source.count, budget, source.closed_book)
    return make_sample(task, i, budget, depth, prompt, tokens, targets, source.closed_book, value_kind=kind,
                       answerable=answerable)


def variables_sample(i: int, budget: int, depth: float, source: Source) -> Sample:
    """A chain VAR A = n, VAR B = VAR A, ... (four hops) spread from `depth` to the end of the haystack (its value is
    in the question, so it is always answerable: `source.if_absent` and `answerable` do not apply)."""
    rng = random.Random(f"{source.seed}:variables:{i}")
    names = ["".join(rng.choice(string.ascii_uppercase) for _ in range(5)) for _ in range(5)]
    value = str(rng.randrange(10_000, 100_000))
    chain = [f"VAR {names[0]} = {value}."] + [f"VAR {b} = VAR {a}." for a, b in zip(names, names[1:])]
    needles = [(depth + (100 - depth) * h / len(chain), statement) for h, statement in enumerate(chain)]
    build = lambda context: render("synthetic_variables", context=context, value=value)  # noqa: E731
    prompt, tokens = fit_prompt(filler(source.corpus, rng), needles, build, source.count, budget, source.closed_book)
    return make_sample("variables", i, budget, depth, prompt, tokens, names, source.closed_book)


def common_words_sample(i: int, budget: int, corpus: str, seed: int, count: Counter_, n: int = 10,
                        common: int = 6, rare: int = 2) -> Sample:
    """A numbered list: n words `common` times each among as many words `rare` times each as the budget holds.
    Where the corpus's words cannot fill the budget at these repeats (a few thousand words reach ~50k tokens),
    both repeats grow in the same ratio (6:2, 9:3, 12:4, ...) until they do; the sample names the repeats."""
    rng = random.Random(f"{seed}:common_words:{i}")
    words = list(corpus_words(corpus))
    rng.shuffle(words)
    top, others = words[:n], words[n:]

    def prompt_with(k: int, c: int, r: int) -> str:
        listed = top * c + others[:k] * r
        random.Random(f"{seed}:common_words:{i}:order").shuffle(listed)
        return render("synthetic_common_words", n=n,
                      context="\n".join(f"{j}. {w}" for j, w in enumerate(listed, start=1)))

    for scale in range(2, 21):
        c, r = common * scale // 2, max(1, rare * scale // 2)
        if scale == 2 or count(prompt_with(len(others), c, r)) >= budget:
            try:
                prompt, tokens = fit_by(lambda k: prompt_with(k, c, r), len(others), count, budget)
                return make_sample("common_words", i, budget, None, prompt, tokens, top,
                                   **({"repeats": f"{c}:{r}"} if scale > 2 else {}))
            except ValueError as err:
                if "too small" not in str(err):
                    raise
    raise ValueError(f"{len(words)} corpus words cannot fill {budget} tokens even at {c}:{r} repeats")


def frequent_words_sample(i: int, budget: int, seed: int, count: Counter_, n: int = 3, alpha: float = 2.0,
                          vocabulary: int = 300) -> Sample:
    """Coded words (random letter strings) drawn from a Zipf law; the n most frequent are asked for."""
    rng = random.Random(f"{seed}:frequent_words:{i}")
    coded = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 7))) for _ in range(vocabulary)]
    weights = [1 / rank ** alpha for rank in range(1, vocabulary + 1)]
    # Every word holds at least one token, so `budget` words always fill it (the first 20,000 are the same at any
    # length: choices draws one word at a time).
    stream = rng.choices(coded, weights, k=max(20_000, budget))

    def prompt_with(k: int) -> str:
        return render("synthetic_frequent_words", n=n, context=" ".join(stream[:k]))

    prompt, tokens = fit_by(prompt_with, len(stream), count, budget)
    used = prompt.split("\n\n")[1].split()
    ranked = Counter(used).most_common(n + 1)
    targets = [w for w, _ in ranked[:n]]
    if len(ranked) > n and ranked[n][1] == ranked[n - 1][1]:  # a tie for the last place: both would be right
        targets = targets[:-1]
    return make_sample("frequent_words", i, budget, None, prompt, tokens, targets)


def qa_sample(i: int, pair: dict, passage: str, budget: int, depth: float, source: Source) -> Sample:
    """A validated QA pair of the user's documents: its passage is the needle, other sentences the haystack
    (not `source.answerable`: the passage left out; no haystack sentence holds the answer either way)."""
    rng = random.Random(f"{source.seed}:qa:{i}")
    haystack = [s for s in filler(source.corpus, rng) if not contains_answer(s, pair["answer"])]
    build = lambda context: render("synthetic_qa", context=context, question=pair["question"],  # noqa: E731
                                   if_absent=source.if_absent)
    needles = [(depth, passage)] if source.answerable else []
    prompt, tokens = fit_prompt(haystack, needles, build, source.count, budget, source.closed_book)
    return make_sample("qa", i, budget, depth, prompt, tokens, [pair["answer"]] if source.answerable else [],
                       source.closed_book, qa_id=pair["qa_id"], answerable=source.answerable)


def make_sample(task: str, i: int, budget: int, depth: float | None, prompt: str, tokens: int, targets: list[str],
            closed_book: bool = False, **extra) -> Sample:
    cluster = f"{task}-{i}"  # an unanswerable haystack has an index of its own (after the answerable ones)
    if closed_book:  # one per haystack: no length, no depth
        budget, depth = 0, None
    where = "closed_book" if closed_book else f"{budget}" + ("" if depth is None else f"@{depth:g}")
    return Sample(id=f"{cluster}:{where}", input=prompt, target=list(targets),
                  metadata={"task": task, "cluster": cluster, "context_tokens": budget, "depth": depth,
                            "prompt_tokens_counted": tokens, "metric": metric_of(task) if targets else "abstain",
                  **{"answerable": True, **extra}})
