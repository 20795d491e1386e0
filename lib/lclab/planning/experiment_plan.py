"""An experiment's plan: its `prepare`'s samples walked through its declared stages (lclab.pipeline.Stage) by the
one generic planner, each stage priced the way lclab.planning.priced prices it; or, where a stage's prompts
cannot be known before a call, the experiment's own plan function (a declared exception, docs/layout.md).

A first stage's prompts are built from each sample as the run builds them and looked up in the cache under the
stage's own Request; a stage that reads an earlier one is built exactly where that earlier reply is cached, and
priced by its template where it is not.
"""

from __future__ import annotations

from ..pipeline import Stage
from .plan import one_at_a_time_local, plan_scope
from .plan import planned_embeddings
from .priced import (Judged, Read, cached_answers, estimated, named, planned_judges, planned_replies, reply_tokens,
                     template_prompt_tokens, text_tokens)
from .speed import load_seconds


def planned_stages(notebook: str, experiment: str, p, samples: list, stages: tuple[Stage, ...],
                   reuse_prefix: bool = False, held: list | None = None, repeated: float = 0.0) -> list[dict | None]:
    """One plan row per model-calling stage, in order, for `samples` under parameters `p` (the declared
    Parameters), each stage over the samples it is asked for (`Stage.when`); None for a reading stage (a judge)
    asked for none of them.
    `reuse_prefix`: the first stage's prompts reach a local model one at a time in this order (its KV cache keeps
    the prefix each shares with the one before); `held`: instead, per sample, what the model read just before its
    first stage's call (plan.planned_answers); `repeated`: the share of the calls of a stage priced by its template
    (`retrieved`) that repeat calls planned before (their prompts are another set's: cache hits by then)."""
    rows, replies = [], {}
    for stage in stages:
        if not stage.calls_model:  # a retrieval stage: what it embeds is its experiment's embedding row
            continue
        model, requests = stage.model(p), stage.requests(p)
        asked = [s for s in samples if stage.asked(s)]
        if stage.retrieved is not None:  # its prompts hold what retrieval will find: priced by the template
            rows.append(planned_retrieved(notebook, experiment, stage, p, asked, reuse_prefix, repeated))
            replies[stage.name] = (model, requests[0], {id(s): None for s in asked})
            continue
        if stage.prompt is not None:
            prompts = [stage.prompt(s) for s in asked]
            before = [h for s, h in zip(samples, held) if stage.asked(s)] if held and stage is stages[0] else None
            rows.append(planned_replies(notebook, experiment, stage.name, model, prompts, requests[0], reuse_prefix,
                                        before))
            answers = cached_answers(model, prompts, requests[0])
            replies[stage.name] = (model, requests[0], {id(s): a for s, a in zip(asked, answers)})
            continue
        if stage.reads not in replies:
            raise ValueError(f"stage {stage.name!r} reads {stage.reads!r}, which no earlier stage of the plan answers")
        read_model, read_request, answers = replies[stage.reads]
        items = [Judged(stage.known(s), None if answers.get(id(s)) is None else {stage.slots[0]: answers[id(s)]})
                 for s in asked]
        rows.append(planned_judges(notebook, experiment, stage, p, items,
                                   Read(stage.reads, read_model, read_request.max_tokens)) if items else None)
    return rows


def planned_retrieved(notebook: str, experiment: str, stage: Stage, p, samples: list, reuse_prefix: bool = False,
                      repeated: float = 0.0) -> dict:
    """The calls of a stage whose prompts hold what retrieval finds (`stage.retrieved`): each its template with
    the known fields and the retrieved slot at k chunks of its pool's mean size under the model's tokenizer; a
    reply at the stage's measured size (else its declared one, else its budget), a one-token reply as one.
    `reuse_prefix` and a declared `shared`: each call keeps, from the one before, the template's opening and the
    chunks it shares with it."""
    model, (request,) = stage.model(p), stage.requests(p)
    retrieved, sizes = stage.retrieved, {}

    def chunk_tokens(s) -> float:  # one pool is shared by many samples: counted once
        pool = retrieved.pool(s)
        if id(pool) not in sizes:
            sizes[id(pool)] = (pool, piece_tokens(model, retrieved, pool))
        return sizes[id(pool)][1]

    prompts = [template_prompt_tokens(model, stage.template, {retrieved.slot: retrieved.k(s) * chunk_tokens(s)},
                                      **stage.known(s)) for s in samples]
    kept = None
    if reuse_prefix and retrieved.shared is not None and samples:
        opening, bare = _openings(model, stage, samples[0])
        kept = [bare + n * chunk_tokens(s) if n else opening
                for s in samples for n in [min(retrieved.shared(s), retrieved.k(s))]]
    reply, source = ((1, "one token") if request.max_tokens == 1 else
                     reply_tokens(experiment, stage.name, model, request.max_tokens))
    return estimated(notebook, stage.name, model, prompts, reply, source, repeated=repeated, request=request,
                     kept=kept)


def piece_tokens(model: str, retrieved, pool: list[str]) -> float:
    """Mean tokens of one chunk of `pool` as it reads in the prompt (`retrieved.piece`): what each of the k
    chunks of a retrieved slot is priced at."""
    return text_tokens(model, [retrieved.piece(t) for t in pool])


def _openings(model: str, stage: Stage, sample) -> tuple[int, int]:
    """(the tokens two of the stage's prompts share when their retrieved chunks differ: up to the first chunk's
    text, its heading included; the same without the heading): what a call keeps of the one before it."""
    from ..models.backends import shared_prefix_tokens

    def prompt(text: str, piece: bool = True) -> str:
        return stage.with_retrieved(sample, stage.retrieved.piece(text) if piece else text)

    return (shared_prefix_tokens(model, prompt("alpha"), prompt("beta")),
            shared_prefix_tokens(model, prompt("alpha", False), prompt("beta", False)))


def plan_notebook(notebook: str, params: dict, defaults: dict) -> list[dict]:
    """The plan of one notebook under its parameters (`defaults`, its declared values, where not given)."""
    from ..experiments import for_notebook

    p = defaults | params
    experiment = for_notebook(notebook)
    with plan_scope():
        if experiment is None:
            rows = []
        elif experiment.plan is not None:
            rows = experiment.plan(notebook, p)
        elif experiment.stages and experiment.prepare:
            rows = planned_experiment(notebook, experiment, experiment.declared(p))
        else:
            rows = []
    return [*rows, start_row(notebook, rows)] if rows else rows


def planned_experiment(notebook: str, experiment, given) -> list[dict]:
    """The texts its run embeds (`embedded`), then its registered sample sets (else `prepare`'s samples through
    `stages`) walked through their stages, per arm, then the cards its judge reads."""
    from ..experiments import SampleSet

    sets = (experiment.sample_sets(given) if experiment.sample_sets else
            [SampleSet(experiment.prepare(given), experiment.stages)])
    rows = ([planned_embeddings(notebook, given.embedder, experiment.embedded(given, sets))]
            if experiment.embedded else [])
    for arm in experiment.arms(given) if experiment.arms else [given]:
        for part in sets:
            first = part.stages[0]
            reuse = part.in_order and one_at_a_time_local(first.model(arm), first.concurrency(arm))
            # a sample that names its model (metadata "model": 03's points) is asked of that model's arm only
            mine = [getattr(s, "metadata", {}).get("model", first.model(arm)) == first.model(arm)
                    for s in part.samples]
            samples = [s for s, m in zip(part.samples, mine) if m]
            held = [h for h, m in zip(part.held, mine) if m] if part.held else None
            got = planned_stages(notebook, experiment.name, arm, samples, part.stages, reuse, held, part.repeated)
            rows += [named(r, label) if part.labels else r
                     for r, label in zip(got, part.labels or got) if r is not None]
        rows += experiment.cards(notebook, arm) if experiment.cards else []
    return rows


def start_row(notebook: str, rows: list[dict]) -> dict:
    """The time a notebook spends outside its calls: the kernel's start and imports, and loading each model it
    will call (lclab.planning.priors: declared, from this machine's cold default run)."""
    from .priors import LOAD_SECONDS, NOTEBOOK_START_SECONDS

    loaded = sorted({r["model"] for r in rows if r.get("calls", 0) > r.get("cached", 0) and r.get("model")})
    seconds = NOTEBOOK_START_SECONDS + sum(load_seconds(m, LOAD_SECONDS.get(m, 0.0)) for m in loaded)
    return {"notebook": notebook, "stage": "start (kernel, imports, model loads; declared)", "model": "",
            "calls": 0, "cached": 0, "prompt_tokens": 0, "completion_tokens": 0, "seconds": seconds, "cost_usd": 0.0}
