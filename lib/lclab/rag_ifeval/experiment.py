"""Notebook 07 as one registered experiment: how it is planned, compared and its prompts rebuilt."""

from __future__ import annotations

import pandas as pd

from ..experiments import Experiment, Series, register
from ..models import cached, count_prompt_tokens
from ..models.configs import model_config
from ..planning.plan import row
from .data import load_documents, load_samples
from .options import Options, build_prompt, context_order, load_template
from .rules import METRICS, SCORES
from .run import EXPERIMENT, rebuild_prompt

UNCACHED_ANSWER_TOKENS = 40  # a typical answer's length, for answers not in the cache yet


def plan(notebook: str, p: dict) -> list[dict]:
    """Every model's exact prompts (as the run builds them), looked up in the cache and counted."""
    fields = {f: p[f] for f in Options.__dataclass_fields__ if f in p}
    options = Options(**fields).resolved()
    docs = load_documents(options.docs_path)
    samples = load_samples(options.eval_path, docs)[:p["n_samples"] or None]
    template = load_template(options.prompt)
    system = None if options.text_completion else (options.system_message or None)
    rows = []
    for spec in p["models"]:
        config = model_config(spec, options.max_tokens)
        prompts = [build_prompt(template, s, context_order(s, options.shuffle_context, options.shuffle_seed), docs,
                                options.refusal_message) for s in samples]
        hits = [cached(config.spec, q, system=system, max_tokens=config.max_tokens, temperature=config.temperature,
                       text_completion=options.text_completion) for q in prompts]
        tokens = sum(count_prompt_tokens(config.spec, q, system) for q in prompts)
        done = [h for h in hits if h is not None]
        rows.append(row(notebook, "rag_ifeval answer", config.spec, len(prompts), len(done), tokens,
                        sum(h["completion_tokens"] for h in done)
                        + UNCACHED_ANSWER_TOKENS * (len(prompts) - len(done))))
    return rows


def with_total(rows: pd.DataFrame) -> pd.DataFrame:
    """Per sample, the total: the mean of its pooled condition scores (the unit compared is the sample)."""
    if len(rows):
        pooled = [c for c in METRICS["total"] if c in rows]
        rows = rows.assign(total=rows[pooled].mean(axis=1, skipna=True))
    return rows


def every_measure(rows: pd.DataFrame) -> list[tuple[str, pd.Series]]:
    """Every condition and pooled measure of a series, not only the total (SCORES ends with the total)."""
    return [(m, rows[m]) for m in SCORES if m in rows]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="07_rag_ifeval", plan=plan, rebuild_prompt=rebuild_prompt,
    comparable=("docs_path", "eval_path", "shuffle_context", "shuffle_seed", "refusal_message", "n_samples",
                "badwords_path"),
    series=Series(key=("id",), value="total", split=("model",), binary=False, x_label="condition or measure",
                  value_label="RAG-IFEval score (mean over samples)",
                  prepare=with_total, cells=every_measure, cluster="id", unit="samples"),
    description="RAG-IFEval: rule-based scores of RAG answers in Polish (include, exclude, cite, refuse, safe)"))
