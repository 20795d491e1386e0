"""A profile's plan against the time its last run took, notebook by notebook (no model is called).

    .venv/bin/python benchmarks/plan_vs_run.py [--profile default]

Run it after a cold run of the profile (`./run_all.sh --profile default` with an empty model cache). Printed
per notebook, in seconds:

  fresh      the plan a fresh machine prints: the default speeds, every reply at its budget, nothing cached
  measured   the plan once this machine's runs are known: its measured speeds (throughput.json) and the reply
             sizes its runs measured (each experiment's accounting logs), still nothing cached
  run        the notebook's wall time in the profile's last run (results/notebooks/<profile>/timings.tsv)

and each plan's error against the run in percent. The "measured" plan reads the very run it is compared with,
so it shows how well the plan's model of cost fits once calibrated, not how it predicts another machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))


def plans(profile: str) -> dict[str, dict[str, float]]:
    from lclab.planning import plan, stages
    from lclab.runs.notebooks import NOTEBOOKS, load_profile, notebook_defaults, parameters_for

    settings = load_profile(profile)
    out: dict[str, dict[str, float]] = {}
    for name, fresh in (("fresh", True), ("measured", False)):
        saved = plan.speed_factor, stages._runs_of
        if fresh:  # what a machine that has run nothing plans: default speeds, replies at their budgets
            plan.speed_factor = lambda model: (1.0, "the default speeds")
            stages._runs_of = lambda experiment, model: []
            stages._measured.cache_clear()
        try:
            for nb in sorted(NOTEBOOKS.glob("[0-9]*.ipynb")):
                rows = plan.plan_notebook(nb.stem, parameters_for(nb, settings), notebook_defaults(nb))
                out.setdefault(nb.stem, {})[name] = sum(r["seconds"] for r in rows if r["seconds"] == r["seconds"])
        finally:
            plan.speed_factor, stages._runs_of = saved
            stages._measured.cache_clear()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="default")
    args = parser.parse_args()
    os.environ["LCLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="plan-cold-")  # nothing cached: a cold plan
    from lclab.runs.naming import executed_dir

    timings = executed_dir(args.profile) / "timings.tsv"
    if not timings.exists():
        sys.exit(f"no {timings}: run ./run_all.sh --profile {args.profile} first")
    ran = {name.removesuffix(".ipynb"): float(sec) for name, sec in
           (line.split("\t") for line in timings.read_text().splitlines() if "\t" in line)}
    planned = plans(args.profile)
    print(f"{'notebook':30s} {'fresh':>8s} {'measured':>9s} {'run':>8s} {'fresh err':>10s} {'measured err':>13s}")
    totals = [0.0, 0.0, 0.0]
    for stem, p in planned.items():
        if stem not in ran:
            continue
        run = ran[stem]
        totals = [totals[0] + p["fresh"], totals[1] + p["measured"], totals[2] + run]
        print(f"{stem:30s} {p['fresh']:8.0f} {p['measured']:9.0f} {run:8.0f} {100 * (p['fresh'] / run - 1):+9.0f}% "
              f"{100 * (p['measured'] / run - 1):+12.0f}%")
    fresh, measured, run = totals
    print(f"{'total':30s} {fresh:8.0f} {measured:9.0f} {run:8.0f} {100 * (fresh / run - 1):+9.0f}% "
          f"{100 * (measured / run - 1):+12.0f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
