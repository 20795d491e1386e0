"""The index of runs: one table over every run folder's manifest, refreshed at the end of each run.

    from lclab.runs.index import run_index
    run_index()      # experiment, run, status, model, judge, date, n, headline metric [CI], calls, wall time

Also written to results/index.csv.
"""

from __future__ import annotations

import json

import pandas as pd

from .. import paths
from .folders import write_atomic

COLUMNS = ["experiment", "run", "status", "model", "judge", "date", "n_items", "headline", "value", "lo", "hi",
           "calls", "calls_to_date", "wall_s"]


def _models(parameters: dict, *names: str) -> str:
    for name in names:
        value = parameters.get(name)
        if value:
            specs = value if isinstance(value, list) else [value]
            return ", ".join(s.get("model", "?") if isinstance(s, dict) else str(s) for s in specs)
    return ""


def judge_of(head: dict, parameters: dict, model: str) -> str:
    """Who judged the headline: as the run named it ("... (self-judged)"), else the judge_model parameter; runs
    made before judges were chosen apart from the model under test judged with the answering model."""
    if head.get("judge"):
        return head["judge"]
    if "judge_model" not in parameters:
        return ""
    judge = _models(parameters, "judge_model") or model
    return f"{judge} (self-judged)" if judge and judge == model else judge


def run_index() -> pd.DataFrame:
    """Every run folder under results/ that has a manifest, newest first."""
    rows = []
    for path in sorted(paths.RESULTS.glob("*/*/manifest.json")):
        try:
            m = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a manifest being written, or damaged: not a run to list
        p, head = m.get("parameters", {}), m.get("headline") or {}
        model = _models(p, "model", "models")
        rows.append({"experiment": m.get("experiment"), "run": m.get("run_name"), "status": m.get("status"),
                     "model": model, "judge": judge_of(head, p, model), "date": m.get("ended"),
                     "n_items": m.get("n_items"), "headline": head.get("metric"), "value": head.get("value"),
                     "lo": head.get("lo"), "hi": head.get("hi"), "calls": m.get("accounting", {}).get("calls"),
                     "calls_to_date": (m.get("accounting_to_date") or {}).get("calls"), "wall_s": m.get("wall_s")})
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.sort_values("date", ascending=False, kind="stable").reset_index(drop=True)


def refresh_index() -> pd.DataFrame:
    """Rewrite results/index.csv from the manifests."""
    table = run_index()
    paths.RESULTS.mkdir(parents=True, exist_ok=True)
    write_atomic(paths.RESULTS / "index.csv", lambda tmp: table.to_csv(tmp, index=False))
    return table
