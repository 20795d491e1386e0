"""Run the NLI answer evaluation (seed 003) over a set of items: two timed stages.

- Transforming: sentence conversion, then pronoun replacement of every answer
  and ground truth (one unit of work per text).
- Getting NLI: every (premise, hypothesis) call, then the refusal batches
  ("separated"), or nothing more ("same": refusal comes with the NLI replies).

Each stage runs `concurrency` requests at once. NLI requests are ordered so that
calls sharing a premise run back to back (`order="premise"`): a llama.cpp
backend then evaluates the premise once and reuses it from its KV cache.
`order="shuffled"` is there to measure what that saves.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field

import pandas as pd

from .errors import MissingAPIKeyError
from .nli_pipeline import (REFUSAL_BATCH, Usage, VARIANTS, batches, judge_hypothesis, pair_estimate,
                           refusal_text, replace_pronouns, tag_refusals)
from .parallel import map_items
from .sentences import last_sentence, to_sentences

DIRECTIONS = ("context_answer", "gt_answer", "answer_gt")
DIRECTION_NAMES = {"context_answer": "context → answer", "gt_answer": "ground truth → answer",
                   "answer_gt": "answer → ground truth"}
ORDERS = ("premise", "shuffled")
# Errors that would fail every request alike stop the run instead of being logged per item.
STOP_ON = (MissingAPIKeyError,)


@dataclass(frozen=True)
class EvalItem:
    item_id: str
    context: str
    question: str
    ground_truth: str
    answer: str
    document: str = ""  # the context's document name, shown in the prompt when asked for


@dataclass
class Prepared:
    item: EvalItem
    context: list[str]
    question_last: str
    answer_raw: list[str]
    gt_raw: list[str]
    answer: list[str] = field(default_factory=list)  # after pronoun replacement
    gt: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def pairs(self, with_document: bool) -> list[tuple[str, str, list[str], list[str], str | None]]:
        """(direction, premise, hypotheses, raw hypotheses, document) for the seed's three pairs."""
        doc = self.item.document if with_document and self.item.document else None
        answer_premise = "\n".join([self.question_last, *self.answer]).strip()
        gt_premise = "\n".join([self.question_last, *self.gt]).strip()
        return [("context_answer", "\n".join(self.context), self.answer, self.answer_raw, doc),
                ("gt_answer", gt_premise, self.answer, self.answer_raw, None),
                ("answer_gt", answer_premise, self.gt, self.gt_raw, None)]


def prepare(item: EvalItem, language: str = "english") -> Prepared:
    """Sentence conversion of one item (no model call)."""
    p = Prepared(item, to_sentences(item.context, language), last_sentence(item.question, language),
                 to_sentences(item.answer, language), to_sentences(item.ground_truth, language))
    if not p.context:
        p.problems.append("empty context")
    if not p.answer_raw:
        p.problems.append("empty answer: no hypotheses for context → answer and ground truth → answer")
    if not p.gt_raw:
        p.problems.append("empty ground truth: no hypotheses for answer → ground truth")
    return p


@dataclass
class NLIRun:
    hypotheses: pd.DataFrame  # one row per (item, direction, hypothesis)
    items: pd.DataFrame  # one row per item: the three pair estimates and the two refusal tags
    timing: dict  # seconds per stage, calls, cache hits, tokens


def order_requests(requests: list[dict], order: str, seed: int = 0) -> list[dict]:
    """Group requests by premise, in order of first appearance; or shuffle them (seeded)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    if order == "shuffled":
        shuffled = list(requests)
        random.Random(seed).shuffle(shuffled)
        return shuffled
    first: dict[str, int] = {}
    for i, r in enumerate(requests):
        first.setdefault(r["premise"], i)
    return sorted(requests, key=lambda r: first[r["premise"]])  # stable: hypothesis order kept


def run_nli(items: list[EvalItem], model: str, *, variant: str = "separated", concurrency: int = 1,
            order: str = "premise", pronouns: bool = True, with_document: bool = False,
            language: str = "english", cache_tag: str | None = None, quiet: bool = False) -> NLIRun:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    seen = set()
    for it in items:
        if it.item_id in seen:
            raise ValueError(f"item_id {it.item_id!r} occurs twice")
        seen.add(it.item_id)
    use = {"transform": Usage(), "nli": Usage()}

    # Stage 1: transforming.
    t0 = time.perf_counter()
    prepared = {it.item_id: prepare(it, language) for it in items}
    units = [(p, which) for p in prepared.values() for which in ("answer", "gt") if getattr(p, f"{which}_raw")]

    def transform(unit):
        p, which = unit
        raw = getattr(p, f"{which}_raw")
        if not pronouns:
            return raw, None
        return replace_pronouns(model, raw, p.question_last, use["transform"], cache_tag)

    for out in map_items(transform, units, concurrency, desc="pronouns", quiet=quiet, stop_on=STOP_ON):
        p, which = out.item
        if out.ok:
            sentences, problem = out.value
        else:  # the call failed outright: keep the sentences as they were, and say so
            sentences, problem = getattr(p, f"{which}_raw"), f"pronoun replacement failed: {out.error}"
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

    def nli(req):
        return judge_hypothesis(model, variant, req["premise"], req["hypothesis"], req["document"],
                                use["nli"], cache_tag)

    rows = []
    for out in map_items(nli, order_requests(requests, order), concurrency, desc=f"NLI ({variant})",
                         quiet=quiet, stop_on=STOP_ON):
        r = {k: v for k, v in out.item.items() if k not in ("premise", "document")}
        v = out.value
        r.update(estimate=v.estimate if v else None, n_facts=len(v.facts) if v else None,
                 facts=json.dumps(v.facts, ensure_ascii=False) if v else None,
                 refusal=v.refusal if v else None, error=out.error)
        if v is not None and v.estimate is None:
            r["error"] = "the model found no fact in this hypothesis"
        rows.append(r)
    hyp = pd.DataFrame(rows, columns=["item_id", "direction", "index", "sentence", "hypothesis", "estimate",
                                      "n_facts", "facts", "refusal", "error"])
    hyp = hyp.sort_values(["item_id", "direction", "index"], key=_item_order(items)).reset_index(drop=True)

    refusals = (_refusals_separated(prepared, model, concurrency, use["nli"], cache_tag, quiet)
                if variant == "separated" else _refusals_same(prepared, hyp))
    nli_s = time.perf_counter() - t1

    item_rows = []
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
        item_rows.append(row)

    timing = {"transform_s": round(transform_s, 2), "nli_s": round(nli_s, 2)}
    for stage, u in use.items():
        timing.update({f"{stage}_calls": u.calls, f"{stage}_cache_hits": u.cache_hits})
    timing["input_tokens"] = sum(u.prompt_tokens for u in use.values())
    timing["output_tokens"] = sum(u.completion_tokens for u in use.values())
    timing["total_tokens"] = timing["input_tokens"] + timing["output_tokens"]
    return NLIRun(hyp, pd.DataFrame(item_rows), timing)


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


def _refusals_separated(prepared: dict[str, Prepared], model: str, concurrency: int, usage: Usage,
                        cache_tag: str | None, quiet: bool) -> dict[str, tuple[bool | None, bool | None]]:
    """Tag the first two sentences of every answer and ground truth, 8 texts per call."""
    texts = [(p.item.item_id, which, refusal_text(getattr(p, f"{which}_raw")))
             for p in prepared.values() for which in ("answer", "gt")]
    texts = [t for t in texts if t[2]]  # an empty text is no answer at all, not a refusal: left untagged
    tags: dict[tuple[str, str], bool | None] = {}
    outs = map_items(lambda batch: tag_refusals(model, [t[2] for t in batch], usage, cache_tag),
                     batches(texts, REFUSAL_BATCH), concurrency, desc="refusal", quiet=quiet, stop_on=STOP_ON)
    for out in outs:
        for i, (item_id, which, _) in enumerate(out.item):
            tags[(item_id, which)] = out.value[i] if out.ok else None
            if not out.ok:
                prepared[item_id].problems.append(f"refusal tagging failed for {which}: {out.error}")
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

