"""RULER's thirteen tasks as RULER defines them (Hsieh et al. 2024; NVIDIA/RULER scripts/synthetic.yaml and
scripts/data/synthetic/*.py), beside the lab's own variants (tasks.py), under RULER's task names.

    niah_single_1     noise haystack ("The grass is green. ..." repeated), word key, 7-digit number value
    niah_single_2     essay haystack, word key, number value
    niah_single_3     essay haystack, word key, UUID value
    niah_multikey_1   essay haystack, 4 word keys (one asked), number values
    niah_multikey_2   a haystack made entirely of distractor needles, word keys, number values
    niah_multikey_3   a needle haystack with UUID keys and UUID values
    niah_multivalue   essay haystack, one key with 4 number values (all asked)
    niah_multiquery   essay haystack, 4 keys asked at once (all values asked)
    vt                variable tracking: one chain of 4 hops in the noise haystack, a one-shot example first
    cwe               common words: a numbered list, the 10 most common words (6 vs 1 repeats below 4k tokens,
                      30 vs 3 from 4k), a one-shot example first
    fwe               frequent coded words: 6-letter coded words from a Zipf law (alpha 2, vocabulary = length /
                      50), the top word replaced by "...", ranks 2-4 asked
    qa_1_pg, qa_2_pg  stand-ins for qa_1 (SQuAD) and qa_2 (HotpotQA), whose data RULER downloads and no installable
                      package ships: RULER's QA template, "Document i:" list and distractor documents, with the
                      lab's reviewed Paul Graham QA pairs (one gold passage) and multi-chunk questions (three gold
                      chunks; any one part of the answer scores); their answers are longer than SQuAD's spans,
                      so their scores are not RULER's qa columns (named apart for that reason)

Keys of type "words" are adjective-noun pairs from wonderwords' lists, as RULER draws them. Each prompt is RULER's
template filled until the prompt plus the task's answer budget (128, 30, 120, 50, 32 tokens) fills the length,
counted in the model's own tokens with its chat template. As RULER runs open models (`ruler_form` "prefill", where
the lab can render the model's chat template: the embedded models, a llama.cpp server, a transformers tokenizer),
the task text is the user turn and the answer prefix follows the assistant header, continued as a raw completion
within RULER's budget; as RULER runs chat APIs ("chat", the rest, or by choice), the prefix ends the user turn and
the reply may take PREFIX_ROOM tokens more, for the prefix a chat model writes again. Needles sit at depths drawn
per haystack from RULER's 40 positions (essay) or anywhere (noise and needle haystacks); one haystack (its keys,
values and depths) is read at every length: the cluster. Scored by RULER's string_match_all / string_match_part
(tasks.score).
"""

from __future__ import annotations

import random
import string
import uuid
from dataclasses import dataclass
from importlib.resources import files

from ..prompts import render, template
from ..runs.params import ParameterError
from ..runs.samples import Sample
from .haystack import corpus_sentences, fit, fit_by
from .once import built_once
from .ruler_qa import available, qa_prompt

NOISE = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
DEPTHS = [round(100 * j / 39) for j in range(40)]  # RULER's 40 needle positions, 0 to 100 %


@dataclass(frozen=True)
class RulerTask:
    family: str                 # niah, vt, cwe, fwe, qa
    haystack: str = "essay"     # essay, noise or needle (niah)
    key: str = "words"
    value: str = "numbers"
    keys: int = 1
    values: int = 1
    queries: int = 1
    answer_tokens: int = 128    # RULER's tokens_to_generate
    metric: str = "string_match_all"
    stands_for: str = ""        # the RULER task a stand-in replaces


RULER_TASKS = {
    "niah_single_1": RulerTask("niah", "noise"),
    "niah_single_2": RulerTask("niah"),
    "niah_single_3": RulerTask("niah", value="uuids"),
    "niah_multikey_1": RulerTask("niah", keys=4),
    "niah_multikey_2": RulerTask("niah", "needle"),
    "niah_multikey_3": RulerTask("niah", "needle", key="uuids", value="uuids"),
    "niah_multivalue": RulerTask("niah", values=4),
    "niah_multiquery": RulerTask("niah", keys=4, queries=4),
    "vt": RulerTask("vt", "noise", answer_tokens=30),
    "cwe": RulerTask("cwe", answer_tokens=120),
    "fwe": RulerTask("fwe", answer_tokens=50),
    "qa_1_pg": RulerTask("qa", answer_tokens=32, metric="string_match_part", stands_for="qa_1"),
    "qa_2_pg": RulerTask("qa", answer_tokens=32, metric="string_match_part", stands_for="qa_2"),
}
RULER_SET = "ruler"  # the task-list entry that stands for all thirteen
# A chat model writes the answer prefix itself before its answer (RULER puts it after the assistant header, where
# the model only continues): RULER's answer budget plus this room for the prefix. In the first RULER run here, vt's
# 30 tokens went to the prefix and no name fitted. The length is still filled to RULER's budget.
PREFIX_ROOM = 64


def expand(tasks: list[str]) -> list[str]:
    """The task list with `ruler` replaced by RULER's thirteen tasks (in RULER's order), duplicates dropped."""
    out: list[str] = []
    for t in tasks:
        for name in (RULER_TASKS if t == RULER_SET else [t]):
            if name not in out:
                out.append(name)
    return out


@built_once(1)
def _wordlists() -> dict[str, list[str]]:
    assets = files("wonderwords") / "assets"
    read = lambda name: [w.strip() for w in (assets / name).read_text(encoding="utf-8").splitlines()  # noqa: E731
                         if w.strip()]
    return {"nouns": read("nounlist.txt"), "adjectives": read("adjectivelist.txt"), "verbs": read("verblist.txt")}


def key_word(rng: random.Random) -> str:
    """RULER's word key or value: an adjective-noun pair of wonderwords' lists, uniform over the pairs (drawn as
    its two halves: RULER lists all 6 million pairs first)."""
    w = _wordlists()
    return f"{rng.choice(w['adjectives'])}-{rng.choice(w['nouns'])}"


@built_once(1)
def list_words() -> tuple[str, ...]:
    """RULER's common-words vocabulary: wonderwords' nouns, adjectives and verbs, distinct."""
    w = _wordlists()
    return tuple(sorted(set(w["nouns"]) | set(w["adjectives"]) | set(w["verbs"])))


def _random(kind: str, rng: random.Random) -> str:
    if kind == "numbers":
        return str(rng.randint(1_000_000, 9_999_999))
    if kind == "uuids":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return key_word(rng)


def ruler_sample(task: str, i: int, length: int, corpus: str, seed: int, count, qa_path: str,
                 multi_qa_path: str, frame=None) -> Sample:
    """Haystack `i` of a RULER task at `length` tokens (prompt + the task's answer budget). `frame`: user text ->
    the model's chat text up to its reply (lclab.models.chat_text), or None where it cannot be rendered: with a
    frame, RULER's prefill (`prefilled`); without, the answer prefix ends the user turn (`ruler_form` "chat")."""
    spec = RULER_TASKS[task]
    rng = random.Random(f"{seed}:ruler:{task}:{i}")
    budget = length - spec.answer_tokens
    repeated: list[bool] = []
    try:
        if spec.family == "niah":
            prompt, tokens, targets = _niah(spec, rng, budget, corpus, count, repeated)
        elif spec.family == "vt":
            prompt, tokens, targets = _vt(rng, budget, count)
        elif spec.family == "cwe":
            prompt, tokens, targets = _cwe(rng, budget, length, count)
        elif spec.family == "fwe":
            prompt, tokens, targets = _fwe(rng, budget, length, count)
        else:
            prompt, tokens, targets = qa_prompt(task, i, rng, budget, corpus, count, qa_path, multi_qa_path)
    except ValueError as err:  # one line, before anything runs: the plan and the run stop on it
        raise ParameterError(f"RULER task {task} cannot fill {length:,} tokens: {err}") from None
    raw = prefilled(prompt, spec.family, frame) if frame else None
    return Sample(id=f"{task}-{i}:{length}", input=raw or prompt, target=targets,
                  metadata={"task": task, "cluster": f"{task}-{i}", "context_tokens": length, "depth": None,
                            "prompt_tokens_counted": tokens, "metric": spec.metric, "answerable": True,
                            "answer_tokens": spec.answer_tokens, "ruler_form": "prefill" if raw else "chat",
                            "max_tokens": spec.answer_tokens + (0 if raw else PREFIX_ROOM),
                            "text_completion": bool(raw), "ruler": spec.stands_for or task,
                            "haystack_repeated": any(repeated)})


# Where each family's answer prefix starts in its template (RULER's `answer_prefix`, after the question).
_PREFIX_STARTS = {"niah": " The special magic"}


def prefilled(prompt: str, family: str, frame) -> str | None:
    """RULER's prompt for an open model: the task text as the user turn in the model's chat template, the answer
    prefix after the assistant header for the model to continue (a raw completion, replying within RULER's budget
    alone); None where the model's template cannot be rendered."""
    cut = prompt.rfind(_PREFIX_STARTS.get(family, " Answer:"))
    framed = frame(prompt[:cut]) if cut > 0 else None
    return framed + prompt[cut:] if framed else None


def _niah(spec: RulerTask, rng: random.Random, budget: int, corpus: str, count, repeated: list[bool]):
    keys = [_random(spec.key, rng) for _ in range(spec.keys)]
    values = [[_random(spec.value, rng) for _ in range(spec.values)] for _ in keys]
    needle = lambda k, v: render("ruler_needle", type_needle_v=spec.value, key=k, value=v)  # noqa: E731
    needles = [needle(k, v) for k, vs in zip(keys, values) for v in vs]
    rng.shuffle(needles)
    asked = rng.sample(range(spec.keys), spec.queries)
    query = ", ".join(keys[j] for j in asked[:-1]) + ", and " + keys[asked[-1]] if len(asked) > 1 else keys[asked[0]]
    text, kind = template("ruler_niah"), spec.value
    if spec.queries * spec.values == 1:  # RULER's singular wording, applied to the template before it is filled
        for a, b in (("Some", "A"), ("are all", "is"), ("are", "is"), ("answers", "answer")):
            text = text.replace(a, b)
        kind = kind[:-1]
    build = lambda context: text.format(type_needle_v=kind, context=context, query=query)  # noqa: E731
    if spec.haystack == "essay":
        units, joiner = corpus_sentences(corpus), " "
        depths = sorted(rng.sample(DEPTHS, len(needles)))
    else:
        units = [NOISE] * (budget // 8 + 16) if spec.haystack == "noise" else _needle_haystack(spec, rng, budget)
        joiner, depths = "\n", sorted(rng.uniform(0, 100) for _ in needles)
    try:
        prompt, tokens = fit(units, list(zip(depths, needles)), build, count, budget, joiner=joiner)
    except ValueError:  # the essays ran out before the budget: RULER repeats them, and so does the lab (said)
        if spec.haystack != "essay":
            raise
        copies = 2 + budget * 12 // sum(len(u) + 1 for u in units)  # no tokenizer reads 12 characters a token
        prompt, tokens = fit(units * copies, list(zip(depths, needles)), build, count, budget, joiner=joiner)
        repeated.append(True)
    return prompt, tokens, [v for j in asked for v in values[j]]


def _needle_haystack(spec: RulerTask, rng: random.Random, budget: int) -> list[str]:
    """Distractor needles with keys and values of the task's kinds: the same first ones at every length."""
    own = random.Random(rng.random())
    return [render("ruler_needle", type_needle_v=spec.value, key=_random(spec.key, own), value=_random(spec.value, own))
            for _ in range(budget // 12 + 16)]


def _vt_chain(rng: random.Random, letters: int, hops: int = 4) -> tuple[list[str], list[str], str]:
    names: list[str] = []
    while len(names) < hops + 1:
        name = "".join(rng.choices(string.ascii_uppercase, k=letters))
        if name not in names:
            names.append(name)
    value = str(rng.randint(10000, 99999))
    return names, [f"VAR {names[0]} = {value}"] + [f"VAR {b} = VAR {a} " for a, b in zip(names, names[1:])], value


def _vt_prompt(rng: random.Random, budget: int, count, letters: int, prefix: str = ""):
    """RULER's noise haystack for vt as its variable_tracking.py lays it out now: the noise sentence and each
    statement a line of their own (lm-eval's port, and RULER before its essay haystack, joined them with spaces,
    so a statement shared a line with the noise after it)."""
    names, chain, value = _vt_chain(rng, letters)
    depths = sorted(rng.uniform(0, 100) for _ in chain)
    build = lambda context: prefix + render("ruler_vt", context=context.replace(". \n", ".\n"), query=value,  # noqa: E731
                                            num_v=len(names))
    prompt, tokens = fit([NOISE] * (budget // 8 + 16), list(zip(depths, chain)), build, count, budget, joiner="\n")
    return prompt, tokens, names


def _vt(rng: random.Random, budget: int, count):
    """One chain of 4 hops; first, RULER's one-shot example: a 500-token chain with 3-letter names, answered."""
    example, _, answer = _vt_prompt(rng, 500 - 30, count, letters=3)
    return _vt_prompt(rng, budget, count, letters=5, prefix=f"{example} {' '.join(answer)}\n\n")


def _numbered(words: list[str]) -> str:
    return " ".join(f"{j}. {w}" for j, w in enumerate(words, start=1))


def _cwe_list(rng: random.Random, words: list[str], common: int, uncommon: int, salt: str) -> str:
    listed = words[:10] * common + words[10:] * uncommon
    random.Random(f"{rng.random()}:{salt}").shuffle(listed)
    return _numbered(listed)


def _cwe(rng: random.Random, budget: int, length: int, count):
    """The 10 most common words; repeats and the one-shot example's sizes as RULER sets them below and from 4k."""
    vocabulary = list(list_words())
    order = rng.sample(vocabulary, len(vocabulary))  # this haystack's words: the first 10 are the common ones
    (ex_n, ex_c, ex_u), (common, uncommon) = ((20, 3, 1), (6, 1)) if length < 4096 else ((40, 10, 3), (30, 3))
    example_words = rng.sample(vocabulary, ex_n)
    example = (render("ruler_cwe", context=_cwe_list(rng, example_words, ex_c, ex_u, "example")) + " "
               + _numbered(example_words[:10]))
    state = rng.random()
    prompt_with = lambda k: example + "\n" + render(  # noqa: E731
        "ruler_cwe", context=_cwe_list(random.Random(state), order[:10 + k], common, uncommon, str(k)))
    prompt, tokens = fit_by(prompt_with, len(order) - 10, count, budget)
    return prompt, tokens, order[:10]


def _fwe(rng: random.Random, budget: int, length: int, count):
    """Coded words by a Zipf law (alpha 2): word r of the vocabulary n r^-2 / zeta(2) times; rank 1 is "..."."""
    size = max(length // 50, 5)
    vocabulary: set[str] = set()
    while len(vocabulary) < size:
        vocabulary.add("".join(rng.choices(string.ascii_lowercase, k=6)))
    coded = sorted(vocabulary)
    rng.shuffle(coded)
    coded[0] = "..."  # RULER treats the top-ranked word as noise
    zeta2, state = 1.6449340668482264, rng.random()

    def prompt_with(n: int) -> str:
        words = [w for r, w in enumerate(coded, start=1) for _ in range(int(n * r ** -2.0 / zeta2))]
        random.Random(f"{state}:{n}").shuffle(words)
        return render("ruler_fwe", context=" ".join(words))

    prompt, tokens = fit_by(prompt_with, 4 * budget, count, budget, whole=False)
    return prompt, tokens, coded[1:4]
