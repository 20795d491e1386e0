"""Lost in the middle (seed §3a): accuracy as a function of where the answer document sits.

For each validated QA pair and each context budget, one fixed, seeded set of
distractor passages fills the budget; only the answer's position changes with
depth, so the depths of a pair differ in nothing else.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pandas as pd

from .context import answer_prompt, candidate_distractors, fill_budget, place_at_depth
from .gateway import budget_counters, complete, tokenizer_name
from .judge import judge_correct, string_match
from .parallel import map_items
from .qa import load_validated
from .runs import ItemLog, fingerprint, problem_lines, run_dir
from .stats import proportion_summary

EXPERIMENT = "depth_sweep"
KEY = ("qa_id", "context_tokens", "depth", "fingerprint")


@dataclass(frozen=True)
class Trial:
    qa_id: str
    doc_id: str
    question: str
    gold: str
    context_tokens: int
    depth: int
    n_documents: int
    position: int
    prompt: str


def build_trials(qa: pd.DataFrame, pool, context_tokens: list[int], depths: list[int], seed: int,
                 count, count_text=None) -> list[Trial]:
    """Every (QA pair, budget, depth) prompt, in an order that lets llama.cpp reuse prompt prefixes.

    Within a (pair, budget) group the deepest placement comes first: the next,
    shallower one shares every document before its answer position with it, and
    llama.cpp skips re-reading a shared prefix.
    """
    by_id = {d.id: d for d in pool}
    trials = []
    for row in qa.itertuples():
        answer = by_id[row.doc_id]
        rng = random.Random(f"{seed}:{row.qa_id}")
        candidates = candidate_distractors(answer, pool, row.answer, rng)
        for budget in context_tokens:
            distractors = fill_budget(answer, candidates, row.question, budget, count, count_text)
            for depth in sorted(depths, reverse=True):
                docs = place_at_depth(answer, distractors, depth)
                trials.append(Trial(row.qa_id, row.doc_id, row.question, row.answer, budget, depth,
                                    len(docs), docs.index(answer), answer_prompt(docs, row.question)))
    return trials


def run_depth_sweep(
    model: str,
    judge_model: str,
    corpus: str,
    qa_path: str,
    n_qa: int,
    context_tokens: list[int],
    depths: list[int],
    seed: int,
    max_workers: int,
    run_name: str,
    max_answer_tokens: int,
) -> dict:
    """Run (or resume) the sweep; returns items, summary and where things were written."""
    out_dir = run_dir(EXPERIMENT, run_name)
    log = ItemLog(out_dir / "items.jsonl", KEY)
    loaded, pool, qa = load_validated(corpus, qa_path, n_qa)
    count, count_text = budget_counters(model)
    trials = build_trials(qa, pool, context_tokens, depths, seed, count, count_text)
    key = lambda t: (t.qa_id, t.context_tokens, t.depth,  # noqa: E731
                     fingerprint(model, judge_model, max_answer_tokens, t.prompt))
    done = log.done()
    pending = [t for t in trials if key(t) not in done]

    # Answers first, all of them, in prefix-sharing order; judging afterwards, so
    # judge prompts do not evict the shared documents from llama.cpp's KV cache.
    answers = map_items(
        lambda t: complete(model, t.prompt, stage="answer", max_tokens=max_answer_tokens),
        pending, max_workers, desc="answer")

    def judge_and_log(outcome) -> dict:
        t = outcome.item
        row = {k: getattr(t, k) for k in ("qa_id", "doc_id", "context_tokens", "depth", "n_documents",
                                          "position", "question", "gold")}
        row["fingerprint"] = key(t)[-1]
        row.update(model=model, judge_model=judge_model)
        if not outcome.ok:
            row.update(response=None, error=f"answer: {outcome.error}", judge_correct=None,
                       judge_error=None, string_match=None)
        else:
            reply = outcome.value
            verdict = judge_correct(judge_model, t.question, reply.text, t.gold)
            row.update(response=reply.text, prompt_tokens=reply.prompt_tokens,
                       answer_cached=reply.cached, answer_latency_s=round(reply.latency_s, 3),
                       string_match=string_match(reply.text, t.gold), **verdict,
                       error=verdict["judge_error"] and f"judge: {verdict['judge_error']}")
        log.append(row)
        return row

    map_items(judge_and_log, answers, max_workers, desc="judge")
    items = log.latest({key(t) for t in trials})
    summary = summarize(items)
    summary.to_csv(out_dir / "summary.csv", index=False)
    return {
        "items": items,
        "summary": summary,
        "dir": out_dir,
        "n_qa": len(qa),
        "n_trials": len(trials),
        "n_resumed": len(trials) - len(pending),
        "passages": len(pool),
        "skipped_files": loaded.skipped,
        "tokenizer": tokenizer_name(model),
    }


def summarize(items: pd.DataFrame) -> pd.DataFrame:
    """Per (context_tokens, depth): judge and string-match accuracy with 95 % CIs, and failures."""
    by = ["context_tokens", "depth"]
    judge = proportion_summary(items, by, "judge_correct", "judge")
    match = proportion_summary(items, by, "string_match", "match")
    return judge.merge(match.drop(columns="match_missing"), on=by)


def describe(run: dict) -> str:
    """What was run, in a few lines, for the top of the notebook's output."""
    lines = [
        f"{run['n_qa']} QA pairs -> {run['n_trials']} trials "
        f"({run['n_resumed']} already done in {run['dir'] / 'items.jsonl'}, resumed)",
        f"{run['passages']} passages in the corpus; tokens counted with the {run['tokenizer']}",
    ]
    items = run["items"]
    lines += problem_lines(run["skipped_files"], items)
    if "prompt_tokens" in items and items["prompt_tokens"].notna().any():
        lines.append(f"documents per context: {items['n_documents'].min()}-{items['n_documents'].max()}; "
                     f"prompt tokens: {items['prompt_tokens'].min():.0f}-{items['prompt_tokens'].max():.0f}")
    return "\n".join(lines)
