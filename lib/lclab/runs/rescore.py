"""Score a finished run again without a model call: every item redone from the model cache, with the scorers,
tables and figure of the code as it is now.

    python -m lclab.runs.rescore results/synthetic/smoke [results/rag_ifeval/smoke ...]

A run's predictions (answers, judge verdicts, logprobs, embeddings) are the model cache's replies to the exact
prompts its samples file holds; its scores, tables and figure are computed from them. A rescore executes the
run's notebook again with the parameters it was given (recorded in its manifest) under a replay
(`models.replay`): no item is resumed from the item log, every reply comes from the cache, and a reply that is not
there fails its item instead of calling the model. So a fixed scorer or a new metric needs no rerun.

The run's own record stays as it was: its manifest keeps when it ran, what it cost, how its trials went and the
commit, tree state and packages its predictions came from (`accounting.csv`, the index row), and the rescore is
recorded beside it (the manifest's `rescores`, with the commit and tree state it scored with; its calls in
`rescore_accounting.csv`, a "rescore: ..." line in `accounting_log.csv`). A rescore needs the run's model cache
(`.cache/llm`, or LCLAB_CACHE_DIR): on a machine without it, the replay stops at the first reply it lacks.

It then says which tables changed, and ends non-zero when a parameter came out different from the run's (a
notebook default changed since), or when a reply was not in the cache: that stops the replay, and the run's
tables and manifest stay as they were (the item log only gains rows equal to those it had).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import pandas as pd

from ..experiments import find
from ..models.accounting import requests_file
from ..models.replay import REPLAY_ENV
from . import manifest
from .folders import RESCORE_ACCOUNTING
from .notebooks import NOTEBOOKS, declared_parameters, execute

TABLES = ("*.csv", "result_items.jsonl")
# the invocations' calls and hits differ by design
NOT_COMPARED = {"accounting.csv", "accounting_log.csv", RESCORE_ACCOUNTING, requests_file("accounting.csv"),
                requests_file(RESCORE_ACCOUNTING)}


def snapshot(run: Path) -> dict[str, bytes]:
    """The run's tables as bytes, by file name; item rows (result_items.jsonl, and a table of them) without their
    `*_cached` columns (whether a reply came from the cache, which under a replay every one did)."""
    tables = {p.name: p.read_bytes() for pattern in TABLES for p in sorted(run.glob(pattern))
              if p.name not in NOT_COMPARED}
    if "result_items.jsonl" in tables:
        rows = [json.loads(line) for line in tables["result_items.jsonl"].splitlines() if line.strip()]
        tables["result_items.jsonl"] = json.dumps([{k: v for k, v in r.items() if not k.endswith("_cached")}
                                                   for r in rows], sort_keys=True).encode()
    for name, data in tables.items():  # a table of item rows (01's closed_book.csv) carries the flag too
        if name.endswith(".csv") and b"_cached" in data.split(b"\n", 1)[0]:
            table = pd.read_csv(run / name, dtype=str, keep_default_na=False)
            tables[name] = table.drop(columns=[c for c in table if c.endswith("_cached")]).to_csv(index=False).encode()
    return tables


def notebook_parameters(recorded: dict, notebook: Path, output: Path) -> dict:
    """The parameters the run's notebook was given: as its manifest records them; for a run made before
    manifests recorded them, as papermill wrote them into an executed copy of the notebook with the run's name;
    else its run parameters under the names the notebook declares. Checked after the rescore against the run's."""
    given = (recorded.get("notebook") or {}).get("parameters")
    if given is not None:
        return dict(given)
    for copy in sorted((output / "results" / "notebooks").glob(f"*/{notebook.name}")):
        executed = json.loads(copy.read_text(encoding="utf-8")).get("metadata", {}).get("papermill", {})
        if executed.get("parameters", {}).get("run_name") == recorded["run_name"]:
            return dict(executed["parameters"])
    declared = declared_parameters(notebook)
    return {k: v for k, v in {**recorded["parameters"], "run_name": recorded["run_name"]}.items() if k in declared}


def rescore(run: str | Path) -> dict:
    """Replay one run; returns {"run", "changed", "calls", "problems"}."""
    run = Path(run).resolve()
    before = manifest.read(run)
    experiment = find(before["experiment"])
    if experiment is None:  # 08's comparison reads other runs and calls no model: rerun it instead
        return {"run": f"{before['experiment']}/{before['run_name']}", "calls": 0, "changed": [],
                "problems": [f"{before['experiment']!r} is no registered experiment (08's comparison is rerun, "
                             "not rescored)"]}
    # a registered notebook path (an experiment kept outside this repo) or a stem under notebooks/
    notebook = (Path(experiment.notebook) if experiment.notebook.endswith(".ipynb")
                else NOTEBOOKS / f"{experiment.notebook_stem}.ipynb")
    # The kernel writes where the run lives: <output>/results/<experiment>/<run_name>.
    output = run.parents[2]
    params = notebook_parameters(before, notebook, output)
    old, old_manifest = snapshot(run), (run / "manifest.json").read_bytes()
    environment = {REPLAY_ENV: "1", "LCLAB_OUTPUT_DIR": str(output)}
    saved = {k: os.environ.get(k) for k in environment}
    os.environ.update(environment)
    try:
        execute(notebook, params, output / "results" / "notebooks" / "rescore" / notebook.name)
    except Exception as err:  # papermill's error names the cell's exception (NotInCacheError, a bug, ...)
        (run / "manifest.json").write_bytes(old_manifest)
        said = f"{getattr(err, 'ename', type(err).__name__)}: {getattr(err, 'evalue', err)}"
        return {"run": f"{before['experiment']}/{before['run_name']}", "calls": 0, "changed": [],
                "problems": [f"the replay stopped ({said}); the run's tables and manifest are as they were"]}
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    after = manifest.read(run)
    new = snapshot(run)
    total = pd.read_csv(run / RESCORE_ACCOUNTING).set_index("stage").loc["total"]
    problems = [f"parameter {k!r} was {before['parameters'].get(k)!r}, the rescore ran {v!r}"
                for k, v in after["parameters"].items() if before["parameters"].get(k) != v]
    if len(after.get("rescores", [])) == len(before.get("rescores", [])):
        problems.append(f"the notebook ran, but not this run (it wrote no manifest here; parameters {params})")
    return {"run": f"{before['experiment']}/{before['run_name']}", "calls": int(total["calls"]), "problems": problems,
            "changed": sorted(n for n in old.keys() | new.keys() if old.get(n) != new.get(n))}


def report(outcome: dict) -> str:
    changed = ", ".join(outcome["changed"]) or "none (byte-identical)"
    lines = [f"{outcome['run']}: {outcome['calls']} model calls; tables changed: {changed}"
             " (the item rows compared without their *_cached columns)"]
    lines += [f"  !! {p}" for p in outcome["problems"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="run folders (results/<experiment>/<run_name>)")
    args = parser.parse_args(argv)
    status = 0
    for run in args.runs:
        if not (Path(run) / "manifest.json").exists():
            print(f"!! {run}: no manifest.json here (a run folder is results/<experiment>/<run_name>)")
            status = 1
            continue
        outcome = rescore(run)
        print(report(outcome))
        status |= int(bool(outcome["calls"] or outcome["problems"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
