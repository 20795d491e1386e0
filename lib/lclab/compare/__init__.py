"""Notebook 08: compare runs side by side, across models, prompts or settings.

    select(["<experiment>/default", "<experiment>/default-qwen2.5-coder-0.5b"])  # run folders by name
    select("all")                                                          # every run, grouped by experiment
    compare(runs)                                                         # per experiment: series, pairs

Runs are compared only when their manifests agree on what makes results
comparable (each experiment's `Experiment.comparable`: the QA set, the budget, the chunking, the input
files' contents, ...); otherwise the comparison is refused, naming each field
that differs, unless `force`. Within one experiment each (run, model) is one
series, drawn over the others with its CIs (`figure.py`), and every series is
paired with the first on the items both measured (`pairs.py`).

    selection.py  selecting runs, the comparability check
    pairs.py    per-experiment series tables and paired differences between series
    figure.py   the overlay figures
"""

from .pairs import compare_family
from .run import compare_runs
from .selection import IncomparableRunsError, check_comparable, select

__all__ = ["IncomparableRunsError", "check_comparable", "compare_family", "compare_runs", "select"]
