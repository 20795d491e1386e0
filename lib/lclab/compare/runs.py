"""Which runs to compare, and whether they can be compared at all."""

from __future__ import annotations

from pathlib import Path

from .. import paths
from ..manifest import read

# What two runs of an experiment must share for their numbers to be comparable: any other parameter (the
# model, the prompt being tested) is what a comparison is for. The judge is the ruler, so it is shared too.
COMPARABLE = {
    "depth_sweep": ("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "depths", "seed",
                    "max_answer_tokens"),
    "context_vs_rag": ("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "noise_levels", "seed", "store",
                       "embedder", "chunk_tokens", "top_k", "max_answer_tokens"),
    "pg_discrete": ("corpus", "questions_path", "labels_path", "n_questions", "store", "embedder", "chunk_chars",
                    "top_k", "n_positive", "n_negative"),
    "pg_continuous": ("corpus", "essay", "start", "n_noisy", "chunk_chars", "seed", "reviewed_qa_path", "max_facts"),
    "nli_eval": ("items", "order", "pronouns", "with_document", "language"),
    "rag_validation": ("judge_model", "corpus", "store", "embedder", "chunk_tokens", "n_single", "multi_qa_path",
                       "n_multi", "max_k", "answer_k", "seed"),
    "rag_ifeval": ("docs_path", "eval_path", "shuffle_context", "shuffle_seed", "refusal_message", "n_samples",
                   "badwords_path"),
}


class IncomparableRunsError(ValueError):
    """The runs differ in what makes their numbers comparable; the message names every such field."""


def select(runs: list[str] | str) -> dict[str, list[Path]]:
    """Run folders grouped by experiment: names like "depth_sweep/default", an experiment name ("depth_sweep":
    all of its runs), or "all". Only folders with a finished manifest count."""
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
            if m.get("status") == "finished" and m["experiment"] in COMPARABLE:
                found.setdefault(m["experiment"], [])
                if manifest.parent not in found[m["experiment"]]:
                    found[m["experiment"]].append(manifest.parent)
    return found


def differences(manifests: list[dict]) -> list[str]:
    """Each field (parameter, or input file contents) on which the runs of one experiment disagree."""
    experiment = manifests[0]["experiment"]
    out = []
    for name in COMPARABLE[experiment]:
        values = [m["parameters"].get(name) for m in manifests]
        if any(v != values[0] for v in values[1:]):
            out.append(f"{name}: " + " vs ".join(repr(v) for v in values))
    for name in sorted({k for m in manifests for k in m.get("inputs", {})}):
        values = [m.get("inputs", {}).get(name) for m in manifests]
        if any(v != values[0] for v in values[1:]) and name in COMPARABLE[experiment]:
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
