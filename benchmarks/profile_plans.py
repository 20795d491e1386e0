"""What each profile plans on this machine (calls, texts embedded, seconds), appended to
benchmarks/measured/profile_plans.csv: the planned times the README's table of profiles quotes. No model is
called or loaded. Planned as a fresh clone plans: on an empty results folder, model-call cache and card store (an
earlier run's measured fan-outs, cached replies and checked card verdicts change what a plan counts; the
machine's speed records stay).

    .venv/bin/python benchmarks/profile_plans.py [PROFILE[:NOTEBOOK,...] ...]

A profile that sizes one notebook is planned for the notebooks named after its colon, as a user runs it
(`./run_all.sh --profile synthetic 09_synthetic_tasks`); the rest plan every notebook.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

QUOTED = ["default", "documented", "smoke", "synthetic:09_synthetic_tasks", "associations:09_synthetic_tasks"]


def planned(profile: str, notebooks: list[str]) -> dict:
    """{"calls", "embedded", "seconds"} of a profile's plan over the named notebooks (all when none are)."""
    from lclab.planning.experiment_plan import plan_notebook
    from lclab.planning.plan import new_plan, plan_scope, plan_table
    from lclab.runs.notebooks import NOTEBOOKS, load_profile, notebook_defaults, parameters_for

    new_plan()
    settings = load_profile(profile)
    chosen = [nb for nb in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")) if not notebooks or nb.stem in notebooks]
    with plan_scope():
        rows = [r for nb in chosen for r in plan_notebook(nb.stem, parameters_for(nb, settings), notebook_defaults(nb))]
    total = plan_table(rows).iloc[-1]
    embedded = sum(r["calls"] for r in rows if r["stage"] == "embed")
    return {"calls": int(total["calls"]) - embedded, "embedded": embedded, "seconds": float(total["seconds"])}


def main(argv: list[str] | None = None) -> int:
    import os
    import tempfile

    from measured_rows import append

    fresh = tempfile.mkdtemp(prefix="lclab-plan-")
    # before lclab loads: no results, no cached call, no card verdict judged here (a first run checks the shipped ones)
    os.environ |= {"LCLAB_OUTPUT_DIR": f"{fresh}/out", "LCLAB_CACHE_DIR": f"{fresh}/cache",
                   "LCLAB_CARD_DIR": f"{fresh}/cards"}

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="*", default=QUOTED)
    rows = []
    for arg in parser.parse_args(argv).profiles:
        profile, _, named = arg.partition(":")
        p = planned(profile, [n for n in named.split(",") if n])
        rows.append({"profile": profile, "notebooks": named or "all", "calls": p["calls"],
                     "embedded": p["embedded"], "planned_s": round(p["seconds"])})
        print(f"{arg}: {p['calls']:,} calls, {p['embedded']:,} texts embedded, {p['seconds'] / 60:.0f} min")
    print(append("profile_plans", rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
