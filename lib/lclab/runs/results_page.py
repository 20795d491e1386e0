"""A results page written from the runs' own files, so a number in it is never stale.

    python -m lclab.runs.results_page [--runs default] [--out docs/results-default.md]

Per registered experiment, every finished run whose name starts with `--runs` (all when not given): the
run that made the number (folder, commit, models, date), its headline with its interval, and its
summary table as the run wrote it (summary.csv).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from .. import paths
from ..experiments import experiments


def _number(value) -> str:
    return "" if value is None or pd.isna(value) else f"{value:.3f}" if isinstance(value, float) else str(value)


def _markdown(table: pd.DataFrame, max_rows: int = 40) -> str:
    """A small table as GitHub markdown (no extra dependency)."""
    shown = table.head(max_rows)
    lines = ["| " + " | ".join(map(str, shown.columns)) + " |", "|" + "---|" * len(shown.columns)]
    lines += ["| " + " | ".join(_number(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    if len(table) > max_rows:
        lines.append(f"\n({len(table) - max_rows} more rows in summary.csv)")
    return "\n".join(lines)


def _run_section(folder: Path) -> str:
    m = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    head = m.get("headline") or {}
    models = ", ".join(f"{k}: {v.get('spec') if isinstance(v, dict) else [x.get('spec') for x in v]}"
                       for k, v in (m.get("models") or {}).items())
    interval = (f" [{_number(head.get('lo'))}, {_number(head.get('hi'))}]"
                if head.get("lo") is not None else "")
    lines = [f"### {m['experiment']}/{m['run_name']}",
             f"Run folder `results/{m['experiment']}/{m['run_name']}/`, commit `{(m.get('commit') or '?')[:10]}`"
             f"{' (uncommitted changes)' if m.get('dirty') else ''}, ended {m.get('ended')}, {m.get('n_items')} "
             f"item rows; {models}.", ""]
    if head.get("metric"):
        lines += [f"Headline: **{head['metric']} = {_number(head.get('value'))}{interval}**", ""]
    summary = folder / "summary.csv"
    if summary.exists() and summary.stat().st_size:
        lines.append(_markdown(pd.read_csv(summary)))
    return "\n".join(lines)


def write(runs: str = "", out: Path | None = None) -> Path:
    """Write the page for the finished runs whose name starts with `runs`; returns its path."""
    out = out or paths.REPO / "docs" / f"results-{runs or 'all'}.md"
    parts = [f"# Results of the runs on this machine{f' named {runs}*' if runs else ''}",
             "Written by `python -m lclab.runs.results_page` from each run's manifest.json and summary.csv; "
             "rerun it after a run, never edit it by hand."]
    for experiment in experiments():
        folders = sorted(f.parent for f in (paths.RESULTS / experiment.name).glob(f"{runs}*/manifest.json")
                         if json.loads(f.read_text(encoding="utf-8")).get("status") in ("finished", "partial"))
        if folders:
            parts.append(f"## {experiment.name} ({experiment.notebook_stem})\n\n{experiment.description}")
            parts += [_run_section(f) for f in folders]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lclab.runs.results_page", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="", help="only runs whose name starts with this (e.g. default)")
    parser.add_argument("--out", type=Path, help="the page to write (default: docs/results-<runs>.md)")
    args = parser.parse_args(argv)
    print(f"results page: {write(args.runs, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
