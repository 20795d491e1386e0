"""Run the NLI answer evaluation (seed 003) for one configuration: two timed stages, through the trial runner.

- Transforming: sentence conversion, then pronoun replacement of every answer
  and ground truth (one trial per text; rows in `transforms.jsonl`).
- Getting NLI: every (premise, hypothesis) call (`hypotheses.jsonl`), then the
  refusal batches (`refusals.jsonl`, variant "separated"), or nothing more
  ("same": refusal comes with the NLI replies).

Each stage runs `concurrency` requests at once. NLI requests are ordered so that
calls sharing a premise run back to back (`order="premise"`): a llama.cpp
backend then evaluates the premise once and reuses it from its KV cache.
`order="shuffled"` is there to measure what that saves. Every row is written
as it finishes, so a killed run resumes without repeating a finished one.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pandas as pd

from ..models import MissingAPIKeyError
from ..runner import Run, Step
from ..runs import fingerprint
from .items import DIRECTIONS, EvalItem, Prepared, order_requests, prepare
from .pipeline import (REFUSAL_BATCH, VARIANTS, batches, judge_hypothesis, pair_estimate, refusal_text,
                       replace_pronouns, tag_refusals)

# Errors that would fail every request alike stop the run instead of being logged per item.
STOP_ON = (MissingAPIKeyError,)
HYPOTHESIS_COLUMNS = ["item_id", "direction", "index", "sentence", "hypothesis", "estimate", "n_facts", "facts",
                      "refusal", "error"]


@dataclass
class NLIRun:
    hypotheses: pd.DataFrame  # one row per (item, direction, hypothesis)
    items: pd.DataFrame  # one row per item: the three pair estimates and the two refusal tags
    seconds: dict  # wall seconds of this run's two stages: {"transform_s", "nli_s"}


def run_nli(run: Run, items: list[EvalItem], model: str, *, config: str | None = None, variant: str = "separated",
            concurrency: int = 1, order: str = "premise", pronouns: bool = True, with_document: bool = False,
            language: str = "english", cache_tag: str | None = None, quiet: bool = False) -> NLIRun:
    """One configuration over `items`; `config` names it in the item logs (default: the model and variant)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if len({it.item_id for it in items}) != len(items):
        raise ValueError("item_id values repeat: every item needs its own id")
    config = config or f"{model} | {variant}"
    made_with = (model, cache_tag)

    # Stage 1: transforming.
    t0 = time.perf_counter()
    prepared = {it.item_id: prepare(it, language) for it in items}
    units = [(p, which) for p in prepared.values() for which in ("answer", "gt") if getattr(p, f"{which}_raw")]

    def transform(unit, row: dict) -> dict:
        p, which = unit
        raw = getattr(p, f"{which}_raw")
        sentences, problem = (replace_pronouns(model, raw, p.question_last, cache_tag) if pronouns else (raw, None))
        return {"sentences": sentences, "problem": problem}

    done = run.trials(
        units, log=run.log(("config", "item_id", "text", "fingerprint"), "transforms.jsonl"), quiet=quiet,
        key=lambda u: (config, u[0].item.item_id, u[1],
                       fingerprint(made_with, pronouns, getattr(u[0], f"{u[1]}_raw"), u[0].question_last)),
        describe=lambda u: {}, steps=[Step("pronouns", transform, concurrency)], stop_on=STOP_ON)
    for r in done.to_dict("records"):
        p, which = prepared[r["item_id"]], r["text"]
        if pd.notna(r["error"]):  # the call failed outright: keep the sentences as they were, and say so
            sentences, problem = getattr(p, f"{which}_raw"), f"pronoun replacement failed: {r['error']}"
        else:
            sentences, problem = r["sentences"], r["problem"] if isinstance(r["problem"], str) else None
        setattr(p, which, sentences)
        if problem:
            p.problems.append(f"{which}: {problem}")
    transform_s = time.perf_counter() - t0

    # Stage 2: getting NLI (and refusal).
    t1 = time.perf_counter()
    requests = [{"item_id": p.item.item_id, "direction": d, "index": i, "premise": premise,
                 "hypothesis": h, "sentence": raw[i], "document": doc}
                for p in prepared.values() for d, premise, hyps, raw, doc in p.pairs(with_document)
                for i, h in enumerate(hyps)]

    def nli(req: dict, row: dict) -> dict:
        v = judge_hypothesis(model, variant, req["premise"], req["hypothesis"], req["document"], cache_tag)
        return {"estimate": v.estimate, "n_facts": len(v.facts), "facts": json.dumps(v.facts, ensure_ascii=False),
                "refusal": v.refusal,
                "error": "the model found no fact in this hypothesis" if v.estimate is None else None}

    hyp = run.trials(
        order_requests(requests, order),
        log=run.log(("config", "item_id", "direction", "index", "fingerprint"), "hypotheses.jsonl"), quiet=quiet,
        key=lambda r: (config, r["item_id"], r["direction"], r["index"],
                       fingerprint(made_with, variant, r["premise"], r["hypothesis"], r["document"])),
        describe=lambda r: {"sentence": r["sentence"], "hypothesis": r["hypothesis"]},
        steps=[Step(f"NLI ({variant})", nli, concurrency)], stop_on=STOP_ON)
    hyp = hyp.reindex(columns=HYPOTHESIS_COLUMNS).sort_values(
        ["item_id", "direction", "index"], key=_item_order(items)).reset_index(drop=True)

    refusals = (_refusals_separated(run, prepared, model, config, concurrency, cache_tag, quiet)
                if variant == "separated" else _refusals_same(prepared, hyp))
    nli_s = time.perf_counter() - t1
    return NLIRun(hyp, _item_table(prepared, hyp, refusals),
                  {"transform_s": round(transform_s, 2), "nli_s": round(nli_s, 2)})


def _item_table(prepared: dict[str, Prepared], hyp: pd.DataFrame, refusals: dict) -> pd.DataFrame:
    rows = []
    for p in prepared.values():
        own = hyp[hyp.item_id == p.item.item_id]
        row = {"item_id": p.item.item_id}
        for d in DIRECTIONS:
            part = own[own.direction == d]
            row[d] = pair_estimate([e if pd.notna(e) else None for e in part.estimate])
            row[f"{d}_n"] = int(part.estimate.notna().sum())
        row["answer_refusal"], row["gt_refusal"] = refusals.get(p.item.item_id, (None, None))
        errors = sorted({e for e in own.error.dropna()})
        row["problems"] = "; ".join(p.problems + errors) or None
        rows.append(row)
    return pd.DataFrame(rows)


def _item_order(items: list[EvalItem]):
    rank = {it.item_id: i for i, it in enumerate(items)}
    drank = {d: i for i, d in enumerate(DIRECTIONS)}

    def key(col: pd.Series) -> pd.Series:
        if col.name == "item_id":
            return col.map(rank)
        if col.name == "direction":
            return col.map(drank)
        return col
    return key


def _refusals_separated(run: Run, prepared: dict[str, Prepared], model: str, config: str, concurrency: int,
                        cache_tag: str | None, quiet: bool) -> dict[str, tuple[bool | None, bool | None]]:
    """Tag the first two sentences of every answer and ground truth, 8 texts per call."""
    texts = [(p.item.item_id, which, refusal_text(getattr(p, f"{which}_raw")))
             for p in prepared.values() for which in ("answer", "gt")]
    texts = [t for t in texts if t[2]]  # an empty text is no answer at all, not a refusal: left untagged
    done = run.trials(
        batches(texts, REFUSAL_BATCH), log=run.log(("config", "batch", "fingerprint"), "refusals.jsonl"),
        quiet=quiet, key=lambda b: (config, f"{b[0][0]}:{b[0][1]}+{len(b)}",
                                    fingerprint(model, cache_tag, [t[2] for t in b])),
        describe=lambda b: {"texts": [[item_id, which] for item_id, which, _ in b]},
        steps=[Step("refusal", lambda b, row: {"tags": tag_refusals(model, [t[2] for t in b], cache_tag)},
                    concurrency)], stop_on=STOP_ON)
    tags: dict[tuple[str, str], bool | None] = {}
    for r in done.to_dict("records"):
        for i, (item_id, which) in enumerate(r["texts"]):
            failed = pd.notna(r["error"])
            tags[(item_id, which)] = None if failed else r["tags"][i]
            if failed:
                prepared[item_id].problems.append(f"refusal tagging failed for {which}: {r['error']}")
    return {k: (tags.get((k, "answer")), tags.get((k, "gt"))) for k in prepared}


def _refusals_same(prepared: dict[str, Prepared], hyp: pd.DataFrame) -> dict[str, tuple[bool | None, bool | None]]:
    """Variant "same": a text is a refusal when one of its first two sentences was tagged one.

    The answer's tags come from its context → answer prompts, the ground truth's
    from its answer → ground truth prompts.
    """
    out = {}
    for item_id in prepared:
        own = hyp[(hyp.item_id == item_id) & (hyp["index"] < 2)]
        res = []
        for d in ("context_answer", "answer_gt"):
            tags = own[own.direction == d].refusal.dropna()
            res.append(bool(tags.any()) if len(tags) else None)
        out[item_id] = tuple(res)
    return out
