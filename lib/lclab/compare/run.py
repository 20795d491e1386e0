"""The comparison as a run of its own: results/compare/<run_name>/, one figure per experiment compared."""

from __future__ import annotations

import pandas as pd

from .. import paths
from ..experiments import Experiment, get
from ..runs.runner import Result, Run
from .figure import family_figure
from .pairs import compare_family
from .selection import check_comparable, select

EXPERIMENT = "compare"
# 08 compares the experiments' runs and is no experiment of its own (not registered: it plans nothing, and it runs
# after every registered one); its runs are filed like theirs, under results/compare/.
COMPARISON = Experiment(name=EXPERIMENT, notebook="08_compare_runs", description="Runs side by side, paired by item")


def compare_runs(runs: list[str] | str, run_name: str, force: bool = False,
                 primary: dict[str, str] | None = None) -> Result:
    """Compare the given runs (names, experiment names, or "all"), experiment by experiment. `primary`: per
    experiment, the series whose comparison with the first is the primary one (default: the first pair); the
    other comparisons of that experiment are a family, Holm-adjusted."""
    groups = select(runs)
    primary = primary or {}
    with Run(COMPARISON, run_name, parameters={"runs": runs, "force": force, "primary": primary}) as run:
        summaries, pairs, notes, figures = [], [], [], {}
        for family, folders in groups.items():
            if get(family).series is None:
                notes.append(f"{family}: no per-item comparison defined for it; left out")
                continue
            differing = check_comparable(folders, force) if len(folders) > 1 else []
            summary, paired, series = compare_family(folders, family, primary.get(family))
            if len(series) < 2:
                notes.append(f"{family}: one series only ({', '.join(series)}): nothing to compare")
                continue
            if differing:
                notes.append(f"{family}: compared although they differ (force=True): " + "; ".join(differing))
            notes.append(f"{family}: {len(series)} series from {len(folders)} runs ({', '.join(f.name for f in folders)})")
            if len(paired) > 1:
                lead = paired[paired["role"] == "primary"].iloc[0]
                notes.append(f"{family}: primary comparison {lead['series']} vs {lead['vs']}; the other "
                             f"{len(paired) - 1} are a family with Holm-adjusted p-values (p_adjusted)")
            summaries.append(summary.assign(experiment=family))
            pairs.append(paired.assign(experiment=family))
            path = paths.FIGURES / f"compare_{family}_{run_name}.png"
            figures[family] = family_figure(family, summary, paired, series, f"{family}: {', '.join(series)}",
                                            path, {"run": f"{EXPERIMENT}/{run_name}", "compared": ", ".join(series)})
        summary = pd.concat(summaries, ignore_index=True) if summaries else pd.DataFrame()
        paired = pd.concat(pairs, ignore_index=True) if pairs else pd.DataFrame()
        return run.result(summary, items=paired, notes=notes, tables={"paired": paired}, data={"figures": figures})
