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

import time
from dataclasses import dataclass

import pandas as pd

from ..models import MissingAPIKeyError
from ..pipeline import Given
from ..runs.folders import fingerprint
from ..runs.runner import Run
from ..runs.samples import Sample
from ..scoring.score import LAYOUT
from .items import DIRECTIONS, EvalItem, Prepared, order_requests, prepare
from .pipeline import (
    REFUSAL_BATCH,
    VARIANTS,
    batches,
    nli_messages,
    pair_estimate,
    pronoun_prompts,
    refusal_batch_prompt,
    refusal_text,
)
from .probability import probability_prompt, refusal_prompt
from .stages import NLI, PRONOUNS, REFUSALS, Asking

# Errors that would fail every request alike stop the run instead of being logged per item.
STOP_ON = (MissingAPIKeyError,)
HYPOTHESIS_COLUMNS = ["item_id", "direction", "index", "sentence", "hypothesis", "premise", "estimate",
                      "estimate_p", "estimate_source", "estimate_n_facts", "estimate_facts", "estimate_refusal",
                      "estimate_p_refusal", "error"]


@dataclass(frozen=True)
class Reading:
    """How every configuration of one evaluation reads its items: `order` the calls' order ("premise": those
    sharing a premise back to back), `pronouns` replaced before the NLI calls or not, `with_document` the source
    document beside each premise, `language` of the sentence splitter."""

    order: str = "premise"
    pronouns: bool = True
    with_document: bool = False
    language: str = "english"


@dataclass
class NLIRun:
    hypotheses: pd.DataFrame  # one row per (item, direction, hypothesis)
    items: pd.DataFrame  # one row per item: the three pair estimates and the two refusal tags
    seconds: dict  # wall seconds of this run's two stages: {"transform_s", "nli_s"}


def pronoun_samples(prepared: dict[str, Prepared], pronouns: bool) -> list[Sample]:
    """Each text's input: the exact prompts pronoun replacement sends (one per batch of sentences), or, without
    the replacement, the sentences themselves (no call)."""
    return [Sample(id=f"{p.item.item_id}:{which}", source=p, target=None,
                   input=pronoun_prompts(raw, p.question_last) if pronouns else raw,
                   metadata={"item_id": p.item.item_id, "text": which, "sentences": raw, "cluster": p.item.item_id})
            for p in prepared.values() for which in ("answer", "gt") if (raw := getattr(p, f"{which}_raw"))]


def nli_samples(prepared: dict[str, Prepared], variant: str, with_document: bool, order: str) -> list[Sample]:
    """Every (premise, hypothesis) call in the order it is sent, with its exact prompt: the hypotheses as the
    pronoun stage left them (the raw sentences where it has not run)."""
    requests = [{"item_id": p.item.item_id, "direction": d, "index": i, "premise": premise,
                 "hypothesis": h, "sentence": raw[i], "document": doc}
                for p in prepared.values() for d, premise, hyps, raw, doc in p.pairs(with_document)
                for i, h in enumerate(hyps)]

    def as_sample(r: dict) -> Sample:
        prompt = (probability_prompt(r["premise"], r["hypothesis"], r["document"]) if variant == "probability"
                  else nli_messages(variant, r["premise"], r["hypothesis"], r["document"]))
        return Sample(id=f"{r['item_id']}:{r['direction']}:{r['index']}", input=prompt,
                      metadata={**r, "cluster": r["item_id"]})

    return [as_sample(r) for r in order_requests(requests, order)]


def refusal_samples(prepared: dict[str, Prepared], variant: str) -> list[Sample]:
    """One sample per refusal call: a text of its own (one token each, "probability"), or a batch of texts, with
    the exact prompt; the first two sentences of every answer and ground truth that has any."""
    texts = [(p.item.item_id, which, refusal_text(getattr(p, f"{which}_raw")))
             for p in prepared.values() for which in ("answer", "gt")]
    texts = [t for t in texts if t[2]]  # an empty text is no answer at all, not a refusal: left untagged
    probability = variant == "probability"
    return [Sample(id=f"{b[0][0]}:{b[0][1]}+{len(b)}", source=None,
                   input=refusal_prompt(b[0][2]) if probability else refusal_batch_prompt([t[2] for t in b]),
                   metadata={"texts": [[item_id, which] for item_id, which, _ in b],
                             "contents": [t[2] for t in b], "cluster": b[0][0]})
            for b in batches(texts, 1 if probability else REFUSAL_BATCH)]


def _replace_pronouns(run: Run, prepared: dict[str, Prepared], asking: Asking, config: str, made_with: tuple,
                      quiet: bool) -> None:
    """Stage 1: each answer and reference with its pronouns replaced (resumable, transforms.jsonl), set on
    `prepared` in place; a failed call keeps the sentences as they were and says so in the item's problems."""
    done = run.stages(
        pronoun_samples(prepared, asking.pronouns), [PRONOUNS], Given(asking),
        log=run.log(("config", "item_id", "text", "fingerprint"), "transforms.jsonl"), quiet=quiet,
        key=lambda u: (config, u["item_id"], u["text"],
                       fingerprint(made_with, asking.pronouns, u["sentences"], u.source.question_last)),
        describe=lambda u: {}, stop_on=STOP_ON)
    for r in done.to_dict("records"):
        p, which = prepared[r["item_id"]], r["text"]
        if pd.notna(r["error"]):  # the call failed outright: keep the sentences as they were, and say so
            sentences, problem = getattr(p, f"{which}_raw"), f"pronoun replacement failed: {r['error']}"
        else:
            sentences, problem = r["sentences"], r["problem"] if isinstance(r["problem"], str) else None
        setattr(p, which, sentences)
        if problem:
            p.problems.append(f"{which}: {problem}")


def run_nli(run: Run, items: list[EvalItem], model: str, *, config: str | None = None, variant: str = "separated",
            concurrency: int = 1, reading: Reading = Reading(), cache_tag: str | None = None,
            quiet: bool = False) -> NLIRun:
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
    prepared = {it.item_id: prepare(it, reading.language) for it in items}
    asking = Asking(model, variant, reading.pronouns, cache_tag, concurrency)
    _replace_pronouns(run, prepared, asking, config, made_with, quiet)
    transform_s = time.perf_counter() - t0

    # Stage 2: getting NLI (and refusal).
    t1 = time.perf_counter()

    hyp = run.stages(
        nli_samples(prepared, variant, reading.with_document, reading.order), [NLI.but(name=f"NLI ({variant})")],
        Given(asking),
        log=run.log(("config", "item_id", "direction", "index", "fingerprint"), "hypotheses.jsonl"), quiet=quiet,
        key=lambda s: (config, s["item_id"], s["direction"], s["index"],
                       fingerprint(made_with, variant, s["premise"], s["hypothesis"], s["document"], LAYOUT)),
        describe=lambda s: {"sentence": s["sentence"], "hypothesis": s["hypothesis"], "premise": s["premise"]},
        stop_on=STOP_ON)
    hyp = hyp.reindex(columns=HYPOTHESIS_COLUMNS).sort_values(
        ["item_id", "direction", "index"], key=_item_order(items)).reset_index(drop=True)

    refusals = (_refusals_same(prepared, hyp) if variant == "same" else
                _refusals_tagged(run, prepared, asking, config, quiet))
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
            row[f"{d}_p"] = pair_estimate([e if pd.notna(e) else None for e in part.estimate_p])
        (row["answer_refusal"], row["gt_refusal"], row["answer_refusal_p"], row["gt_refusal_p"],
         row["answer_refusal_source"], row["gt_refusal_source"]) = refusals.get(p.item.item_id, (None,) * 6)
        row["answer_text"], row["gt_text"] = refusal_text(p.answer_raw), refusal_text(p.gt_raw)
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


def _refusals_tagged(run: Run, prepared: dict[str, Prepared], asking: Asking, config: str,
                     quiet: bool) -> dict[str, tuple]:
    """Tag the first two sentences of every answer and ground truth: 8 texts per call ("separated"), or one
    token per text ("probability"). Returns {item: (answer refusal, gt refusal, their probabilities)}."""
    model, cache_tag, variant = asking.model, asking.cache_tag, asking.variant
    done = run.stages(
        refusal_samples(prepared, variant), [REFUSALS], Given(asking),
        log=run.log(("config", "batch", "fingerprint"), "refusals.jsonl"),
        quiet=quiet, key=lambda s: (config, s.id, fingerprint(model, cache_tag, variant, s["contents"], LAYOUT)),
        describe=lambda s: {"texts": s["texts"]}, stop_on=STOP_ON)
    tags: dict[tuple[str, str], tuple] = {}
    for r in done.to_dict("records"):
        for i, (item_id, which) in enumerate(r["texts"]):
            failed = pd.notna(r["error"])
            v = {} if failed else r["verdicts"][i]
            tags[(item_id, which)] = (v.get("refusal"), v.get("refusal_p"), v.get("refusal_source"))
            if failed:
                prepared[item_id].problems.append(f"refusal tagging failed for {which}: {r['error']}")
    return {k: tuple(tags.get((k, w), (None, None, None))[field] for field in range(3) for w in ("answer", "gt"))
            for k in prepared}


def _refusals_same(prepared: dict[str, Prepared], hyp: pd.DataFrame) -> dict[str, tuple]:
    """Variant "same": a text is a refusal when one of its first two sentences was tagged one (its probability:
    the largest of theirs).

    The answer's tags come from its context → answer prompts, the ground truth's
    from its answer → ground truth prompts.
    """
    out = {}
    for item_id in prepared:
        own = hyp[(hyp.item_id == item_id) & (hyp["index"] < 2)]
        tags, probabilities, sources = [], [], []
        for d in ("context_answer", "answer_gt"):
            part = own[own.direction == d]
            seen = part.estimate_refusal.dropna()
            tags.append(bool(seen.any()) if len(seen) else None)
            probabilities.append(float(part.estimate_p_refusal.max()) if part.estimate_p_refusal.notna().any()
                                 else None)
            sources.append(next(iter(part.estimate_source.dropna()), None))
        out[item_id] = (*tags, *probabilities, *sources)
    return out
