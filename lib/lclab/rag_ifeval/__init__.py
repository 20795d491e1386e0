"""Notebook 07, RAG-IFEval (seed 001): a rule-based benchmark of RAG answers in Polish (no judge model).
Its Polish lemmas are in lclab.text.polish and its JSON model configs in lclab.models.configs (shared).

    rules.py         the five conditions (include, exclude, cite, refuse, safe) and the pooled metrics
    data.py          the official data format, checked on load
    options.py       the run options, defined once (the CLI and notebook 07 take them from here)
    stages.py        its one declared stage, asked of each model (`Arm`: the model's config and the options)
    experiment.py    its registration: samples, stage and arms (the generic planner's), comparison
    run.py           prepare each model's samples (exact messages), answer and score them through the runner
    tables.py        per-model summaries, the side-by-side table, the console report
    cli.py           python -m lclab.rag_ifeval
    figure.py        every condition and measure per model, with bootstrap CIs
"""

from ..models.configs import ModelConfig, model_config
from .data import BenchmarkItem, DataError, load_badwords, load_documents, load_samples
from .options import Options, build_prompt, context_order, load_template
from .rules import CONDITIONS, METRICS, Answer, Judge
from .run import EXPERIMENT, prepare, run_model, run_models
from .tables import format_summary, model_summaries, sample_table, score_table, summary
