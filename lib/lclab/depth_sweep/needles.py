"""Several needles at once: k answer passages at spread depths in one context, their k questions asked together;
a trial scores the fraction of gold answers found in the reply (judge-free: the normalized gold answer in the
response, as the sweep's string match)."""

from __future__ import annotations

import random

import pandas as pd

from ..runs.folders import fingerprint
from ..pipeline import Given
from ..runs.runner import Run
from ..runs.samples import Sample
from ..stats import bootstrap_mean_ci
from ..text.context import candidate_distractors
from ..text.normalize import contains_answer
from .haystacks import multi_needle, spread_depths
from .stages import MULTI_NEEDLE

KEY = ("group", "needles", "context_tokens", "fingerprint")


def needle_trials(qa: pd.DataFrame, pool, ks: list[int], budgets: list[int], seed: int, count,
                  count_text) -> list[Sample]:
    """One trial per (group of k consecutive QA pairs, budget): its prompt, and the k gold answers as target."""
    by_id = {d.id: d for d in pool}
    trials = []
    for k in ks:
        for start in range(0, len(qa) - k + 1, k):
            group = qa.iloc[start:start + k]
            needles = [by_id[d] for d in group["doc_id"]]
            sources = {n.source for n in needles}
            candidates = [d for d in candidate_distractors(needles[0], pool, group["answer"].iloc[0],
                                                           random.Random(f"{seed}:{'+'.join(group['qa_id'])}"))
                          if d.source not in sources and not any(contains_answer(d.text, g) for g in group["answer"])]
            for budget in budgets:
                prompt = multi_needle(needles, list(group["question"]), candidates, budget, count, count_text)
                trials.append(Sample(id="+".join(group["qa_id"]), input=prompt, target=list(group["answer"]),
                                     metadata={"needles": k, "context_tokens": budget}))
    return trials


def run_needles(run: Run, p, qa: pd.DataFrame, pool, count, count_text) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Answer every multi-needle trial, `p.needles` above 1 (resumable, needles.jsonl); (rows, fraction found per
    k and budget)."""
    ks, model = [k for k in p.needles if k > 1], p.model
    if not ks:
        return pd.DataFrame(), pd.DataFrame()
    trials = needle_trials(qa, pool, ks, p.context_tokens, p.seed, count, count_text)

    rows = run.stages(
        trials, [MULTI_NEEDLE], Given(p), log=run.log(KEY, "needles.jsonl"),
        key=lambda t: (t.id, t["needles"], t["context_tokens"], fingerprint(model, p.max_answer_tokens, t.input)),
        describe=lambda t: {"golds": t.target, "depths": spread_depths(t["needles"]), "model": model})
    table = []
    for (k, budget), part in rows.groupby(["needles", "context_tokens"]) if "fraction_found" in rows else []:
        lo, hi = bootstrap_mean_ci(part["fraction_found"].dropna().tolist())
        table.append({"needles": k, "context_tokens": budget, "groups": int(part["fraction_found"].notna().sum()),
                      "fraction_found": part["fraction_found"].mean(), "lo": lo, "hi": hi})
    return rows, pd.DataFrame(table)


def needle_notes(table: pd.DataFrame) -> list[str]:
    return [f"{r.needles} needles in {r.context_tokens} tokens: {r.fraction_found:.2f} of the gold answers found "
            f"[bootstrap 95 % CI {r.lo:.2f}, {r.hi:.2f}], {r.groups} groups" for r in table.itertuples()]
