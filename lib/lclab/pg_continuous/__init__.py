"""Notebook 04, the Paul Graham continuous retrieval dataset (seed 002): how much of a golden response does a
mix of golden and noisy contexts cover, and does the fact-extraction prompt matter?

    contexts.py  golden and noisy contexts; the generated or reviewed question and golden response
    facts.py     IO and chain-of-thought fact extraction; every fact scored against every context
    combine.py   the 120 combinations of contexts, binary and soft OR
    run.py       the run and its tables
    figure.py    coverage against the number of golden contexts, IO against COT
    experiment.py  its registration: plan, what makes runs comparable, how they are compared
"""

from .combine import combination_score, combinations_table, context_combinations, or_binary, or_soft, per_context_table
from .contexts import Context, contexts_table, load_reviewed, pick_contexts
from .facts import STYLES, extract_facts, unique_facts
from .run import EXPERIMENT, run_continuous
