"""Which runs to compare, and whether they can be compared at all (each experiment declares what two of its
runs must share: `Experiment.comparable`)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from .. import paths
from ..experiments import find
from ..runs.manifest import read

# A partial run (some items failed, left out of every rate) is compared on the items it has.
FINISHED = ("finished", "partial")


class IncomparableRunsError(ValueError):
    """The runs differ in what makes their numbers comparable; the message names every such field."""


def select(runs: list[str] | str) -> dict[str, list[Path]]:
    """Run folders grouped by experiment: names like "<experiment>/<run>", an experiment name (all of its
    runs), or "all". Only folders with a finished manifest count."""
    wanted = [runs] if isinstance(runs, str) else list(runs)
    found: dict[str, list[Path]] = {}
    for name in wanted:
        if name == "all":
            folders = sorted(paths.RESULTS.glob("*/*/manifest.json"))
        elif "/" in name:
            folders = [paths.RESULTS / name / "manifest.json"]
        else:
            folders = sorted((paths.RESULTS / name).glob("*/manifest.json"))
        if not folders or not all(f.exists() for f in folders):
            raise FileNotFoundError(f"no finished run {name!r} under {paths.RESULTS} (a run folder with manifest.json)")
        for manifest in folders:
            m = read(manifest.parent)
            experiment = find(m["experiment"])
            if m.get("status") in FINISHED and experiment is not None and experiment.comparable is not None:
                found.setdefault(m["experiment"], [])
                if manifest.parent not in found[m["experiment"]]:
                    found[m["experiment"]].append(manifest.parent)
    return found


def differences(manifests: list[dict]) -> list[str]:
    """Each field (parameter, or input file contents) on which the runs of one experiment disagree."""
    experiment = find(manifests[0]["experiment"])
    comparable = experiment.comparable
    # A parameter added after a run was made is read at its default (the run behaved as the default says).
    defaults = {f.name: f.default for f in fields(experiment.parameters)} if experiment.parameters else {}
    out = []
    for name in comparable:
        values = [m["parameters"].get(name, defaults.get(name)) for m in manifests]
        if any(v != values[0] for v in values[1:]):
            out.append(f"{name}: " + " vs ".join(repr(v) for v in values))
    for name in sorted({k for m in manifests for k in m.get("inputs", {})}):
        values = [m.get("inputs", {}).get(name) for m in manifests]
        if any(v != values[0] for v in values[1:]) and name in comparable:
            out.append(f"{name} (file contents): " + " vs ".join(str(v) for v in values))
    return out


def check_comparable(folders: list[Path], force: bool = False) -> list[str]:
    """The differences between the runs' manifests; raises IncomparableRunsError unless `force`."""
    manifests = [read(f) for f in folders]
    found = differences(manifests)
    if found and not force:
        names = ", ".join(f"{m['experiment']}/{m['run_name']}" for m in manifests)
        raise IncomparableRunsError(f"{names} are not comparable: " + "; ".join(found)
                                    + " (force=True compares them anyway)")
    return found
