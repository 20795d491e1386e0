"""Notebook 05 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Experiment, Series, register
from ..planning.plan import CHARS_PER_TOKEN, row
from .evaluate import EXPERIMENT
from .items import prepare
from .labels import load_items
from .parameters import Parameters

TEMPLATE_TOKENS = 250  # an NLI or pronoun prompt around its premise and hypothesis
EXPLANATION_TOKENS = 60  # a generated verdict with its reason (the one-token configuration writes 1)


def plan(notebook: str, p: dict) -> list[dict]:
    """Per configuration: the NLI calls counted exactly from the items' sentences, their tokens estimated."""
    items = load_items(p["items_path"])
    items = items[:p["n_items"]] if p["n_items"] else items
    prepared = [prepare(it, p["language"]) for it in items]
    hypotheses = sum(2 * len(x.answer_raw) + len(x.gt_raw) for x in prepared)
    premise = sum(len(it.context) for it in items) / CHARS_PER_TOKEN / max(1, len(items))
    rows = []
    for model in p["models"] or [p["model"]]:
        for i, variant in enumerate(p["variants"]):
            for level in p["concurrency"]:
                name = f"{variant}, concurrency {level}"
                if p["pronouns"] and i == 0:  # the other variants reuse these replies from the cache
                    rows.append(row(notebook, f"pronouns ({name}, estimated)", model, 2 * len(items), 0,
                                    2 * len(items) * TEMPLATE_TOKENS, 2 * len(items) * EXPLANATION_TOKENS))
                one_token = variant == "probability"
                rows.append(row(notebook, f"nli ({name}, estimated)", model, hypotheses, 0,
                                hypotheses * (premise + TEMPLATE_TOKENS),
                                hypotheses * (1 if one_token else EXPLANATION_TOKENS)))
                texts = 2 * len(items)
                rows.append(row(notebook, f"refusal ({name}, estimated)", model, texts if one_token else -(-texts // 8),
                                0, texts * 60, texts if one_token else texts * 16))
    return rows


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="05_nli_answer_eval", plan=plan, parameters=Parameters,
    comparable=("items", "order", "pronouns", "with_document", "language"),
    series=Series(key=("item_id", "direction", "index"), value="estimate_p", split=("model", "prompt", "concurrency"),
                  binary=False, label="entailed", cluster="item_id", unit="answers"),
    description="NLI-based answer evaluation: ROC AUC of sentence-level entailment against labels"))
