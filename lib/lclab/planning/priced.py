"""The plan of a stage whose prompts are not known before the run: they quote what an earlier stage will write
(an answer a judge reads), or what retrieval will find (the chunks a RAG answer reads).

Such a prompt is still built the way the run builds it: its own template, filled with everything known before
the run (the question, the reference, the passage), the unknown slots left empty and counted by the model's
tokenizer like any first-stage prompt. What fills those slots is priced from a size the experiment declares
(k chunks of `chunk_tokens`; an answer at its expected size), and a reply at the expected size declared for its
gateway stage (lclab.planning.priors; the budget only where none is declared, and never above it). Where earlier
runs of the experiment exist, what they measured replaces the prior: the mean completion tokens per call of that
gateway stage and model (`measured`), read from their accounting logs, and the calls per earlier reply of a
stage whose count the earlier replies decide (`fan_out`: claims per text, facts per list). So no experiment
carries token arithmetic of its own: templates are counted, sizes are declared, and runs correct both.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import paths
from ..models import Request, cached, count_prompt_tokens, count_tokens
from ..prompts import fields, render
from .plan import answers_judged_before, planned_answers, row
from .priors import ANSWER_SPREAD, expected_count, expected_reply


@dataclass(frozen=True)
class Measured:
    """What earlier runs' calls of one gateway stage took, per call (calls made and replies read from the cache)."""

    prompt: float
    completion: float
    calls: int
    runs: int


def _runs_of(experiment: str, model: str) -> list:
    """Run folders of `experiment` whose parameters name `model` (as the answering or the judging model)."""
    out = []
    for path in sorted((paths.RESULTS / experiment).glob("*/manifest.json")):
        try:
            parameters = json.loads(path.read_text(encoding="utf-8")).get("parameters", {})
        except (OSError, ValueError):
            continue
        named = [v for k, v in parameters.items() if k.endswith(("model", "models")) and v]
        named = [m for v in named for m in (v if isinstance(v, list) else [v])]
        if model in named or (model and any(isinstance(m, dict) and m.get("model") == model for m in named)):
            out.append(path.parent)
    return out


def measured(experiment: str, stage: str, model: str) -> Measured | None:
    """Mean prompt and completion tokens per call of gateway stage `stage` over every invocation of every earlier
    run of `experiment` that named `model`; None when none has called that stage."""
    return _measured(experiment, stage, model, _results_stamp(experiment))


def _results_stamp(experiment: str) -> tuple:
    """What changes when a run of the experiment ends (its accounting logs), so a plan reads them once."""
    logs = sorted((paths.RESULTS / experiment).glob("*/accounting_log.csv"))
    return tuple((str(p), p.stat().st_mtime_ns) for p in logs)


@functools.lru_cache(maxsize=256)
def _measured(experiment: str, stage: str, model: str, _stamp: tuple) -> Measured | None:
    calls = prompt = completion = 0.0
    runs = 0
    for folder in _runs_of(experiment, model):
        log = folder / "accounting_log.csv"
        if not log.exists():
            continue
        rows = pd.read_csv(log)
        rows = rows[rows["stage"] == stage]
        n = (rows["calls"] + rows["cache_hits"]).sum()
        if n <= 0:
            continue
        runs += 1
        calls += n
        prompt += (rows["prompt_tokens"] + rows["cached_prompt_tokens"]).sum()
        completion += (rows["completion_tokens"] + rows["cached_completion_tokens"]).sum()
    if not calls:
        return None
    return Measured(prompt / calls, completion / calls, int(calls), runs)


def reply_tokens(experiment: str, stage: str, model: str, budget: int) -> tuple[float, str]:
    """Tokens of one reply of `stage`: as earlier runs measured them, else as declared (lclab.planning.priors), else
    the budget; never above the budget. And where the figure comes from."""
    seen = measured(experiment, stage, model)
    if seen is not None:
        return min(seen.completion, float(budget)), f"measured in {seen.runs} run{'s' * (seen.runs != 1)}"
    prior = expected_reply(experiment, stage)
    if prior is None:
        return float(budget), "budget"
    return min(prior, float(budget)), "declared"


def fan_out(experiment: str, name: str, stage: str, per_stage: str, model: str, per_call: float) -> tuple[float, str]:
    """How many things one reply of `per_stage` yields (`name`: claims per text, facts per list), read from earlier
    runs as calls of `stage` per call of `per_stage` over `per_call` (the later calls each thing makes), else the
    declared prior; and where the figure comes from."""
    later, earlier = measured(experiment, stage, model), measured(experiment, per_stage, model)
    if later is None or earlier is None or not earlier.calls:
        return expected_count(name), f"{name} declared"
    return later.calls / earlier.calls / per_call, f"{name} measured in {later.runs} run{'s' * (later.runs != 1)}"


@functools.lru_cache(maxsize=4096)
def _template_frame(model: str, template: str, known: tuple) -> int:
    values = dict(known)
    return count_prompt_tokens(model, render(template, **{f: values.get(f, "") for f in fields(template)}))


def template_prompt_tokens(model: str, template: str, slots: dict[str, float], **known: str) -> float:
    """Tokens of one prompt of `template`: rendered with the values `known` before the run and its `slots` left
    empty, counted as the model reads it (chat template included), plus each slot's stand-in size in tokens."""
    unknown = set(slots) - fields(template)
    if unknown:
        raise KeyError(f"template {template!r} has no field(s) {sorted(unknown)}")
    return _template_frame(model, template, tuple(sorted(known.items()))) + sum(slots.values())


def text_tokens(model: str, texts: list[str]) -> float:
    """Mean tokens of `texts` under the model's tokenizer (what a slot filled by one of them holds), 0 for none."""
    return sum(count_tokens(model, t) for t in texts) / len(texts) if texts else 0.0


def estimated(notebook: str, stage: str, model: str, prompts: list[float], reply: float, source: str,
              repeated: float = 0.0, request: Request | None = None, kept: list[float] | None = None) -> dict:
    """A plan row for calls whose prompts are priced, not built: `prompts` holds each call's prompt tokens
    (template_prompt_tokens), `reply` each reply's tokens, `source` where that reply size comes from;
    `repeated` the share expected to repeat a prompt already asked (answered from the cache, no time);
    `request` the run's request for these calls (a response format, logprobs and the budget price a reply:
    plan.row); `kept` per call the tokens of its prompt a local model still holds from the call before."""
    repeats = round(len(prompts) * repeated)
    todo = [(round(n), round(min(k, n))) for n, k in zip(prompts, kept or [0] * len(prompts))]
    return row(notebook, f"{stage} (estimated; replies: {source})", model, len(prompts), repeats, sum(prompts),
               reply * len(prompts), todo[:len(todo) - repeats] if repeats else todo, request)


def answer_spread(experiment: str) -> tuple[float, str]:
    """How fast distinct answers to one question grow with the answers asked: the exponent b of distinct = n ** b
    (lclab.planning.priors.ANSWER_SPREAD), fitted on the latest earlier run's judged rows of `experiment` (per
    question and reference, its n answers and their distinct responses: least squares of log distinct on log n
    through 0), else declared; and where it comes from. Read once per plan (every judge stage asks)."""
    items = sorted((paths.RESULTS / experiment).glob("*/result_items.jsonl"))
    return _answer_spread(experiment, tuple((str(p), p.stat().st_mtime_ns) for p in items))


@functools.lru_cache(maxsize=64)
def _answer_spread(experiment: str, _stamp: tuple) -> tuple[float, str]:
    logs = sorted((paths.RESULTS / experiment).glob("*/result_items.jsonl"), key=lambda f: f.stat().st_mtime)
    for log in reversed(logs):
        rows = pd.read_json(log, lines=True, dtype=False)
        reference = next((c for c in ("gold", "reference") if c in rows), None)
        if reference is None or not {"question", "response", "judge_correct"} <= set(rows.columns):
            continue
        judged = rows[rows["judge_correct"].notna()][["question", reference, "response"]].astype(str)
        per_question = judged.groupby(["question", reference])["response"].agg(["size", "nunique"])
        per_question = per_question[per_question["size"] >= 2]
        if len(judged) >= 4 and len(per_question):
            x, y = np.log(per_question["size"]), np.log(per_question["nunique"])
            spread = float(np.clip((x * y).sum() / (x * x).sum(), 0.0, 1.0))
            return spread, f"answer spread measured in run {log.parent.name}"
    return ANSWER_SPREAD, "answer spread declared"


def _judged_key(judge: str, template: str, item: Judged) -> tuple:
    """What tells two judged answers' prompts apart before the answer: the judge, its template, the known fields."""
    return judge, template, tuple(sorted(item.known.items()))


def repeat_share(judge: str, template: str, items: list, spread: float) -> float:
    """The share of `items` (Judged, answers not known yet) expected to repeat an answer already judged for the
    same question (the same judge prompt: a cache hit). The plan being made counts the answers it has priced per
    question across stages and notebooks; the k-th answer to a question is new with chance k ** b - (k - 1) ** b."""
    if not items:
        return 0.0
    new = 0.0
    for item in items:
        before = answers_judged_before(_judged_key(judge, template, item))
        new += (before + 1) ** spread - before ** spread
    return 1 - new / len(items)


def named(plan_row: dict, stage: str) -> dict:
    """The row under another stage name, keeping what its name says in brackets of how it was planned."""
    _, bracket, how = plan_row["stage"].partition(" (")
    return plan_row | {"stage": stage + bracket + how}


def merged(rows: list[dict]) -> dict:
    """One plan row for one stage planned in parts (calls whose prompts are built, calls priced): summed, named
    after the first part that is estimated (or the first)."""
    rows = [r for r in rows if r["calls"]]
    if len(rows) <= 1:
        return rows[0] if rows else {}
    named = next((r for r in rows if "estimated" in r["stage"]), rows[0])
    out = dict(named)
    for column in ("calls", "cached", "prompt_tokens", "completion_tokens", "seconds", "cost_usd"):
        out[column] = sum(r[column] for r in rows)
    return out


@dataclass(frozen=True)
class Judged:
    """One item a later stage will read: the template's fields known before the run, and the fields the earlier
    reply fills ({"answer": text}) when that reply is already in the cache (the prompt is then built exactly and
    looked up too); None when it is not."""

    known: dict
    filled: dict | None = None


@dataclass(frozen=True)
class Read:
    """The earlier stage a later one reads, as a plan prices its replies: its gateway stage, the model it calls
    and its reply budget."""

    stage: str
    model: str
    budget: int


def planned_judges(notebook: str, experiment: str, stage, p, items: list[Judged], read: Read) -> dict:
    """The calls of `stage` (an lclab.pipeline.Stage that reads an earlier stage's replies: a judge reading
    answers) under parameters `p`: its template's `slots` are what the earlier reply fills, its `requests(p)` the
    run's own request of each call per item (the verdict, then any self-consistency samples). An item whose
    earlier reply is cached has its prompt built and looked up; the others are priced by the template with the
    slots at the earlier reply's measured size (else its budget)."""
    judge, template, slots, requests = stage.model(p), stage.template, stage.slots, stage.requests(p)
    exact, priced, unknown = [], [], []
    reply_budget = requests[0].max_tokens
    answer_size, _ = reply_tokens(experiment, read.stage, read.model, read.budget)
    reply, source = reply_tokens(experiment, stage.name, judge, reply_budget)
    for item in items:
        if item.filled is not None:
            exact.append(render(template, **item.known, **item.filled))
            answers_judged_before(_judged_key(judge, template, item))  # counted for later ones
        else:
            stand_in = {slot: answer_size / len(slots) for slot in slots}
            priced.append(template_prompt_tokens(judge, template, stand_in, **item.known))
            unknown.append(item)
    rows = [planned_answers(notebook, stage.name, judge, exact, request, reply=reply)[0] for request in requests]
    spread, said = answer_spread(experiment) if unknown else (1.0, "")
    share = repeat_share(judge, template, unknown, spread)
    rows.append(estimated(notebook, stage.name, judge, priced * len(requests), reply,
                          f"{source}; {share:.0%} repeats, {said} ({spread:.2f})" if share else source, share,
                          requests[0]))
    return merged(rows)


def cached_answers(model: str, prompts: list, request: Request) -> list[str | None]:
    """The reply text of each prompt's call (the run's `request`) where it is in the cache, else None."""
    hits = [cached(model, p, request) for p in prompts]
    return [h["text"] if h is not None else None for h in hits]


def planned_replies(notebook: str, experiment: str, stage: str, model: str, prompts: list, request: Request,
                    reuse_prefix: bool = False, held: list | None = None) -> dict:
    """A first stage's calls (`planned_answers`: exact prompts, looked up in the cache under the run's `request`),
    each reply not cached priced at what earlier runs measured for the stage (else at the request's budget)."""
    reply, _ = reply_tokens(experiment, stage, model, request.max_tokens)
    return planned_answers(notebook, stage, model, prompts, request, reuse_prefix, reply=reply, held=held)[0]
