"""Notebook 05, NLI-based answer evaluation (seed 003): does an LLM checking answers sentence by sentence
agree with the maintainer's entailment labels, and what does each configuration cost? (Its sentence split is
shared: lclab.text.sentences; its one-token verdict too: lclab.scoring.entailment.)

    items.py      an item, its sentences and the three premise/hypothesis pairs; request order
    pipeline.py   the model calls: pronoun replacement, fact-level NLI, refusal tagging
    run.py        one configuration through the trial runner, in two timed stages
    labels.py     the hand-labelled items and labels, checked against the sentences
    evaluate.py   every configuration, ROC AUC and refusal accuracy, the seed's two tables
    figure.py     ROC per direction, time against concurrency
    experiment.py  its registration: plan, what makes runs comparable, how they are compared
"""

from .evaluate import (
    EXPERIMENT,
    auc_table,
    check_configs,
    config_label,
    refusal_table,
    run_configs,
    run_nli_eval,
    seed_auc_table,
    seed_timing_table,
)
from .items import DIRECTION_NAMES, DIRECTIONS, ORDERS, EvalItem, order_requests, prepare
from .labels import Labels, load_items, load_labels
from .run import Reading, run_nli
