"""Notebook 02, long context vs RAG (seed 000 §3b) over the same document sets.

    sets.py    the nested document sets per noise level; indexing one set and retrieving from it
    run.py     both methods answered and judged, the summary per level and method; the optional arms
    frontier.py  accuracy against tokens read per arm (RAG at several k, long context per level), Self-Route
    figure.py  accuracy, prompt tokens and answer time against the size of the set; the frontier
    experiment.py  its registration: plan, what makes runs comparable, how they are compared
"""

from .run import EXPERIMENT, METHODS, run_context_vs_rag, summarize
from .sets import DocumentSet, build_sets, n_at_level, retrieve
