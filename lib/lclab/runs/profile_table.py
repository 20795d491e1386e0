"""The planned size of each documented profile, counted from its plan, never typed: what the README's table of
profiles quotes (`python -m lclab.runs.profile_table` prints it; tests/test_docs_modules.py checks the calls).

Calls do not depend on the machine; seconds do (they come from this machine's measured speeds), so the README
gives the seconds of the machine it was written on and the test checks the calls only.
"""

from __future__ import annotations

import argparse

from .notebooks import NOTEBOOKS, load_profile, notebook_defaults, parameters_for

QUOTED = ("default", "documented")  # the profiles whose plans the README quotes in calls


def planned(profile: str) -> dict:
    """{"calls", "embedded", "seconds"} of a profile's plan over every notebook (no model is called or loaded):
    model calls, and texts looked up or embedded by the embedding stages, apart."""
    from ..planning.experiment_plan import plan_notebook
    from ..planning.plan import new_plan, plan_scope, plan_table

    new_plan()
    settings = load_profile(profile)
    with plan_scope():
        rows = [r for nb in sorted(NOTEBOOKS.glob("[0-9]*.ipynb"))
                for r in plan_notebook(nb.stem, parameters_for(nb, settings), notebook_defaults(nb))]
    total = plan_table(rows).iloc[-1]
    embedded = sum(r["calls"] for r in rows if r["stage"] == "embed")
    return {"calls": int(total["calls"]) - embedded, "embedded": embedded, "seconds": float(total["seconds"])}


def described(profile: str) -> str:
    """How the README's table words a profile's plan: "about 43 minutes (535 calls)"."""
    p = planned(profile)
    size = f"{p['seconds'] / 3600:.1f} hours" if p["seconds"] >= 5400 else f"{p['seconds'] / 60:.0f} minutes"
    return f"about {size} ({p['calls']:,} calls, {p['embedded']:,} texts embedded)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lclab.runs.profile_table", description=__doc__.split("\n\n")[0])
    parser.add_argument("profiles", nargs="*", default=list(QUOTED))
    for name in parser.parse_args(argv).profiles:
        print(f"{name}: {described(name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
