"""What a plan declares before any run of an experiment has measured it.

A reply's length is the model's to choose: its budget is only a ceiling (a one-line answer under a 384-token
budget is priced seven times too long at the budget). A stage whose number of calls depends on an earlier reply
(a check per extracted claim, a score per extracted fact) cannot be counted before that reply exists. For both,
the plan reads a declared prior until a run of the experiment with the same model has measured the real figure
(`lclab.planning.priced`), and says which it used in the stage's name.

The priors are the means measured by this machine's cold default run (0.5B answering, 1.5B judging; printed by
`benchmarks/reply_sizes.py`), rounded up: a prior for a model or endpoint that writes longer replies is still
replaced by its first run's measurement.
"""

from __future__ import annotations

# Expected completion tokens of one reply, by gateway stage; an (experiment, stage) entry overrides the stage's.
REPLY_TOKENS: dict = {
    "answer": 15, "closed-book answer": 18, "multi-needle answer": 30,  # a short answer, "a few words"
    "judge card": 8, "qa_validation": 8,  # JSON verdicts (each judge kind declares its own: scoring.judge_kinds)
    "qa_generation": 120, "qa_generation again": 120, "qa_round_trip": 8, "qa_closed_book": 8,  # 3 pairs; answers
    "pronouns": 27, "generate": 105, "facts": 268,
    # 05's separated variant: 1,856 tokens over 33 NLI and refusal replies in the cold default run of 2026-11-26
    # (the probability variant's one-token verdicts are stages of their own)
    "nli": 56, "refusal": 56, "nli verdict": 1, "refusal verdict": 1,
    "rag_ifeval answer": 20,  # 492 tokens over 26 answers in the cold default run of 2026-11-26 (its first)
}

# Seconds a notebook spends outside its model calls: the kernel's start and imports (papermill, pandas, torch
# where retrieval is imported), and each model's load the first time it is called.
# Notebook wall minus its run's wall in cold default runs: 5-12 s for 00-05 on one 2-core machine, 2.6-10.1 s (mean
# 5.7) for 00-09 on another, where the 0.5B's and 1.5B's loads took 1 and 2 s (lclab.planning.probe, which replaces
# these loads by this machine's own once it has run).
NOTEBOOK_START_SECONDS = 6.0
LOAD_SECONDS = {"local/qwen2.5-coder-0.5b": 2.0, "local/qwen2.5-coder-1.5b": 4.0, "local/all-MiniLM-L6-v2": 8.0}

# Expected fan-out: how many things one earlier reply yields, by name.
# Facts per list: 42 fact scores from 14 contexts in both cold default runs of 2026-11-26 (3.0; 5 was declared).
# Asked again per pair: a QA pair that fails a check is asked again (lclab.qa.generate, at most twice); declared
# at one, between a model whose pairs pass (0) and one whose every pair fails (2), until a run measures it.
# Per passage of 00 (lclab.qa.generate; declared, not measured, until a run measures them): of 3 candidates about
# two pass the text checks and are asked back; about one in three needs a second closed-book probe; one passage
# in four is asked again.
COUNTS = {"claims per text": 3, "facts per list": 3, "asked again per pair": 0.25, "round trips per passage": 2.0,
          "closed-book probes per passage": 1.3}


# Answer spread: distinct answers to one question grow as n ** ANSWER_SPREAD with the n answers asked (0: always the
# same answer, 1: never a repeat). A judge prompt for an answer already judged for the same question is a cache hit,
# and a small model answers a short factoid the same few ways across depths, methods and notebooks. In the cold
# default run of 2026-11-27 on a second 2-core machine, 01 and 02 judged 78 answers to 6 questions (13 each) with
# 23 distinct (3.8 a question): ln 3.8 / ln 13 = 0.52.
ANSWER_SPREAD = 0.5


def declare_reply(stage: str, tokens: float) -> None:
    """Declare the expected tokens of one reply of gateway stage `stage` (a judge kind declares its verdict's
    size with the rest of it: lclab.scoring.judge_kinds)."""
    REPLY_TOKENS.setdefault(stage, tokens)


def expected_reply(experiment: str, stage: str) -> float | None:
    """The declared tokens of one reply of `stage` in `experiment`, or None where nothing is declared."""
    value = REPLY_TOKENS.get((experiment, stage), REPLY_TOKENS.get(stage))
    return None if value is None else float(value)


def expected_count(name: str) -> float:
    """The declared fan-out `name` (see COUNTS)."""
    return float(COUNTS[name])
