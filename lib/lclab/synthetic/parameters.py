"""Notebook 09's parameters, declared once: its parameters cell is written from this class
(python -m lclab.runs.declared --write) and the checks and the plan read it (lclab.runs.declared)."""

from __future__ import annotations

from dataclasses import dataclass

from ..runs.declared import param


@dataclass
class Parameters:
    model: str = param("local/qwen2.5-coder-0.5b", "(model) answering model (keys only from the environment)")
    tasks: list = param(
        ["needle_single", "needle_multikey", "needle_multivalue", "needle_multiquery", "variables", "common_words",
         "frequent_words", "qa"],
        "(one of: needle_single, needle_multikey, needle_multivalue, needle_multiquery, variables, "
        "common_words, frequent_words, qa, association, association_literal, ruler, niah_single_1, niah_single_2, "
        "niah_single_3, niah_multikey_1, niah_multikey_2, niah_multikey_3, niah_multivalue, niah_multiquery, vt, "
        "cwe, fwe, qa_1_pg, qa_2_pg) tasks to run: the lab's own, or RULER's as RULER defines them (`ruler`: all "
        "thirteen, qa_1_pg and qa_2_pg standing in for SQuAD and HotpotQA; lclab/synthetic/ruler.py); "
        "association: needles tied to the question without a shared word (NoLiMa's style), association_literal "
        "its control")
    context_tokens: list = param([500, 1000, 2000], "(tokens) prompt budgets, in the answering model's tokens")
    depths: list = param([0, 50, 100], "(0 to 100) where the needle asked for sits, % of the way through the haystack")
    n_samples: int = param(
        1,
        "(at least 1) haystacks per task (each read at every length and depth); qa uses at most the validated pairs")
    seed: int = param(0, "keys, values, haystack starts")
    corpus: str = param("paul_graham", "\"paul_graham\" or a folder of .txt/.md files: the haystack sentences")
    value_kinds: list = param(
        ["numbers", "uuids", "words"],
        "(one of: numbers, uuids, words) needle values, taken in turn per haystack")
    qa_path: str = param("data/pg_qa/qa.csv", "reviewed QA pairs for the qa and qa_1_pg tasks (rows marked yes)")
    multi_qa_path: str = param("data/multi_chunk_qa/qa.csv",
                               "reviewed multi-chunk questions for qa_2_pg (three gold chunks each, rows marked yes)")
    max_answer_tokens: int = param(
        64, "(at least 1) room for several values or ten words (RULER's tasks use RULER's own: 128, 30, 120, 50, 32)")
    ruler_form: str = param(
        "prefill",
        "(one of: prefill, chat) RULER's tasks as RULER runs open models (the answer prefix after the assistant "
        "header, a raw completion within RULER's budget; where the model's chat template cannot be rendered, chat) "
        "or as it runs chat APIs (the prefix at the end of the user turn, 64 reply tokens more)")
    beyond_window: str = param(
        "refuse",
        "(one of: refuse, skip) lengths the model's window cannot hold: stop naming them, or leave them out and say so")
    max_workers: int = param(
        1,
        "(at least 1) concurrent requests: 1 keeps llama.cpp's prefix reuse; raise for a batching server")
    closed_book: bool = param(
        False,
        "True also asks every haystack's question with no text: the reading gain per task (with − without, paired "
        "by haystack), and the scores by length again on the haystacks not answered closed-book")
    unanswerable_share: float = param(
        0.0,
        "(0 to 0.9) share of each needle, qa and association task's haystacks with the asked needles left "
        "out (added beside the n_samples answerable ones); above 0, those tasks' prompts say to reply \"not in the "
        "text\" when the text does not answer, and `abstention` reports both rates")
    run_name: str = param("default", "results/synthetic/<run_name>/, figures/synthetic_<run_name>.png")
