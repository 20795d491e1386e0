"""lclab: the helper library behind the notebooks (long-context and RAG evaluation, offline first).

Shared (changed with care; none of it imports an experiment):

    models/      the one door to every model: `lclab.models.complete`, the cache, the ledger, the backends
    runs/        the trial runner and Result, run folders and item logs, manifests, the index of runs,
                 notebook execution (`python -m lclab.runs.notebooks`), parameter checks, the report
    planning/    what a run will cost before it runs (`./run_all.sh --plan`)
    scoring/     judges, reliability cards, judge-free baselines, labelling sheets, score separation, logprob scores
    stats/       intervals, paired effects, effective length
    text/        documents and passages, long-context building, answer normalization, Polish lemmas, hand tables
    retrieval/   chunking, embeddings into vector stores, retrieval metrics
    qa/          QA sets: generate, check, review, and the validated pairs experiments use
    compare/     runs of one experiment side by side (notebook 08)
    experiments.py  the registry: every experiment folder registers one `Experiment`
    deferred_imports.py  optional imports other packages make and the lab never uses, put off to their first use

Experiments, one folder each, each with an `experiment.py` that registers it (docs/adding-an-experiment.md):
make_qa_set (00), depth_sweep (01), context_vs_rag (02), pg_discrete (03), pg_continuous (04), nli (05),
rag_validation (06), rag_ifeval (07), synthetic (09); compare (08) is shared code.
"""

import warnings

from .deferred_imports import defer_unused_imports

defer_unused_imports()

# The lab draws text progress bars on purpose (readable in papermill's executed copies); a library that imports
# tqdm.auto in a kernel without ipywidgets would otherwise warn in every notebook.
warnings.filterwarnings("ignore", message="IProgress not found")

