"""Notebook 05 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Experiment, Series, register
from ..planning.plan import one_at_a_time_local
from ..planning.priced import merged, named, planned_replies
from ..runs.declared import declared
from ..scoring.logprob import score_request, with_logprobs
from .evaluate import EXPERIMENT, run_nli_eval
from .items import prepare
from .labels import load_items
from .parameters import Parameters
from .pipeline import (NLI_STAGE, PRONOUN_BATCH, PRONOUN_STAGE, REFUSAL_STAGE, batches, nli_request, pronoun_request,
                       refusal_request)
from .probability import VERDICT_STAGES
from .run import nli_samples, pronoun_samples, refusal_samples


def plan(notebook: str, given: dict) -> list[dict]:
    """Per configuration, the run's own samples with their exact prompts, looked up in the cache: the pronoun
    prompts; the NLI prompts with each hypothesis as the sentence conversion leaves it (the pronoun stage may
    reword it a little); the refusal prompts. Replies not cached are priced at what earlier runs measured, else
    at each call's budget. A declared exception to the generic planner (docs/layout.md): one pronoun call per
    batch of a text's sentences, its budget by the batch's size, and NLI prompts that quote the pronoun stage's
    rewritten sentences."""
    p = declared(Parameters, given)
    items = load_items(p.items_path)
    items = items[:p.n_items] if p.n_items else items
    rows = []
    for model in p.models or [p.model]:
        for variant in p.variants:
            for level in p.concurrency:
                prepared = {it.item_id: prepare(it, p.language) for it in items}
                for x in prepared.values():
                    x.answer, x.gt = x.answer_raw, x.gt_raw
                tag = None if level == 1 else f"concurrency={level}"
                reuse = one_at_a_time_local(model, level)
                name = f"{variant}, concurrency {level}"
                if p.pronouns:  # every variant asks them; after the first, from the cache (priced as repeats)
                    rows.append(named(_pronouns(notebook, model, prepared, tag), f"{PRONOUN_STAGE} ({name})"))
                nli = nli_samples(prepared, variant, p.with_document, p.order)
                if variant == "probability":
                    rows.append(planned_replies(notebook, EXPERIMENT, VERDICT_STAGES[0], model,
                                                [s.input for s in nli], score_request(tag), reuse))
                else:
                    rows.append(planned_replies(notebook, EXPERIMENT, NLI_STAGE, model, [s.input for s in nli],
                                                with_logprobs(nli_request(variant, tag)), reuse))
                # With pronouns replaced, the run's hypotheses are the pronoun stage's rewording, which the plan does
                # not parse: its prompts are counted on the sentences before it (tests/test_fake_model.py found the
                # difference: 10-20 % of the prompt tokens on the fake model's rewording).
                rows[-1] = named(rows[-1], f"{NLI_STAGE} ({name}" + (
                    "; estimated: the hypotheses before pronoun replacement)" if p.pronouns else ")"))
                if variant != "same":
                    rows.append(named(_refusals(notebook, model, prepared, variant, tag), f"{REFUSAL_STAGE} ({name})"))
    return rows


def _pronouns(notebook: str, model: str, prepared: dict, tag: str | None) -> dict:
    """One call per batch of a text's sentences, its budget by the batch's size (as replace_pronouns asks)."""
    by_size: dict[int, list[str]] = {}
    for sample in pronoun_samples(prepared, True):
        for batch, prompt in zip(batches(sample["sentences"], PRONOUN_BATCH), sample.input):
            by_size.setdefault(len(batch), []).append(prompt)
    return merged([planned_replies(notebook, EXPERIMENT, PRONOUN_STAGE, model, prompts, pronoun_request(n, tag))
                   for n, prompts in by_size.items()])


def _refusals(notebook: str, model: str, prepared: dict, variant: str, tag: str | None) -> dict:
    samples = refusal_samples(prepared, variant)
    if variant == "probability":
        return planned_replies(notebook, EXPERIMENT, VERDICT_STAGES[1], model, [s.input for s in samples],
                               score_request(tag))
    by_size: dict[int, list[str]] = {}
    for s in samples:
        by_size.setdefault(len(s["contents"]), []).append(s.input)
    return merged([planned_replies(notebook, EXPERIMENT, REFUSAL_STAGE, model, prompts,
                                   with_logprobs(refusal_request(n, tag))) for n, prompts in by_size.items()])


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=run_nli_eval, notebook="05_nli_answer_eval", plan=plan, parameters=Parameters,
    comparable=("items", "order", "pronouns", "with_document", "language"),
    series=Series(key=("item_id", "direction", "index"), value="estimate_p", split=("model", "prompt", "concurrency"),
                  binary=False, label="entailed", cluster="item_id", unit="answers"),
    description="NLI-based answer evaluation: ROC AUC of sentence-level entailment against labels"))
