"""A profile's plan against the time its last run took, notebook by notebook (no model is called).

    .venv/bin/python benchmarks/plan_vs_run.py [--profile default]

Run it after a cold run of the profile (`./run_all.sh --profile default` with an empty model cache). Printed
per notebook, in seconds:

  fresh      the plan a fresh machine prints before set-up: the reference machine's speeds scaled by this
             machine's numpy figures (lclab.planning.machine), replies at their declared sizes,
             nothing cached
  probed     the same after set-up's speed probe (lclab.planning.probe): prefill and decode as probed here, no run
             measured yet (what ./run_all.sh prints before its first notebook)
  measured   the plan once this machine's runs are known: its measured speeds (throughput.json) and the reply
             sizes its runs measured (each experiment's accounting logs), still nothing cached
  run        the notebook's wall time in the profile's last run (results/notebooks/<profile>/timings.tsv)

and each plan's error against the run in percent. The "measured" plan reads the very run it is compared with,
so it shows how well the plan's model of cost fits once calibrated, not how it predicts another machine.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))


def plans(profile: str) -> dict[str, dict[str, float]]:
    from lclab.planning import experiment_plan, plan, speed, stages
    from lclab.planning.priors import ANSWER_SPREAD
    from lclab.runs.notebooks import NOTEBOOKS, load_profile, notebook_defaults, parameters_for, run_order

    settings = load_profile(profile)
    out: dict[str, dict[str, float]] = {}
    probe = speed._probe
    for name in ("fresh", "probed", "measured"):
        saved = speed.speed_factor, stages._runs_of, stages.answer_spread
        if name != "measured":  # what a machine that has run nothing plans: replies at their declared sizes
            speed.speed_factor = lambda model: (speed.SUSTAINED, "no run measured")
            stages._runs_of = lambda experiment, model: []
            stages.answer_spread = lambda experiment: (ANSWER_SPREAD, "answer spread declared")
            stages._measured.cache_clear()
        if name == "fresh":  # and, before set-up, the reference's speeds scaled by the numpy figures (no probe)
            speed._probe = lambda model: {}
        plan.new_plan()
        try:
            with plan.plan_scope():  # one profile: a call or card priced by one notebook is a cache hit for the next
                for nb in run_order(sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))):
                    rows = experiment_plan.plan_notebook(nb.stem, parameters_for(nb, settings), notebook_defaults(nb))
                    out.setdefault(nb.stem, {})[name] = sum(r["seconds"] for r in rows if r["seconds"] == r["seconds"])
        finally:
            speed.speed_factor, stages._runs_of, stages.answer_spread = saved
            speed._probe = probe
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
    names = ("fresh", "probed", "measured")
    print(f"{'notebook':30s}" + "".join(f"{n:>9s}" for n in names) + f"{'run':>8s}"
          + "".join(f"{n + ' err':>13s}" for n in names))
    totals = dict.fromkeys([*names, "run"], 0.0)
    shown = []
    for stem, p in planned.items():
        if stem not in ran:
            continue
        p = p | {"run": ran[stem]}
        totals = {k: totals[k] + p[k] for k in totals}
        shown.append((stem, p))
        print(_line(stem, p, names))
    print(_line("total", totals, names))
    from measured_rows import append  # this comparison as rows of docs/benchmarks.md

    run = f"{args.profile} {datetime.date.today()}"
    print(append("plan_vs_run", [{"run": run, "notebook": stem, "run_s": round(p["run"]),
                                  **{f"{n}_s": round(p[n]) for n in names}}
                                 for stem, p in [*shown, ("total", totals)]]))
    return 0


def _line(stem: str, p: dict, names: tuple) -> str:
    return (f"{stem:30s}" + "".join(f"{p[n]:9.0f}" for n in names) + f"{p['run']:8.0f}"
            + "".join(f"{100 * (p[n] / p['run'] - 1):+12.0f}%" for n in names))


if __name__ == "__main__":
    raise SystemExit(main())
