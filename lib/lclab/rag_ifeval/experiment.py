"""Notebook 07 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

import pandas as pd

from ..experiments import Experiment, Series, register
from ..models.configs import model_config
from ..planning.stages import planned_replies
from .data import load_documents, load_samples
from .options import Options
from .parameters import Parameters
from .rules import METRICS, SCORES
from .run import EXPERIMENT, answer_request, prepare, run_rag_ifeval


def plan(notebook: str, p: dict) -> list[dict]:
    """Every model's prepared samples (the exact messages the run sends), looked up in the cache and counted; an
    answer not cached at what earlier runs measured, else at the model's max_tokens."""
    options = Options(**{f: p[f] for f in Options.__dataclass_fields__ if f in p}).resolved()
    docs = load_documents(options.docs_path)
    items = load_samples(options.eval_path, docs)[:p["n_samples"] or None]
    rows = []
    for spec in p["models"]:
        config = model_config(spec, options.max_tokens)
        inputs = [s.input for s in prepare(config, items, docs, options)]
        # The embedded engine answers one call at a time whatever the run's threads, and every prompt opens with the
        # same system message and instructions (~200 tokens): llama.cpp keeps them from the call before.
        rows.append(planned_replies(notebook, EXPERIMENT, "rag_ifeval answer", config.spec, inputs,
                                    answer_request(config, options), reuse_prefix=config.spec.startswith("local/")))
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
    name=EXPERIMENT, run=run_rag_ifeval, notebook="07_rag_ifeval", plan=plan, parameters=Parameters,
    comparable=("docs_path", "eval_path", "shuffle_context", "shuffle_seed", "refusal_message", "n_samples",
                "badwords_path"),
    series=Series(key=("id",), value="total", split=("model",), binary=False, x_label="condition or measure",
                  value_label="RAG-IFEval score (mean over samples)",
                  prepare=with_total, cells=every_measure, cluster="id", unit="samples"),
    description="RAG-IFEval: rule-based scores of RAG answers in Polish (include, exclude, cite, refuse, safe)"))
