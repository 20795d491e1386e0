"""The one trial type every experiment can share, and writing a run's trials to disk before they run.

    Sample(id, input, target, metadata)   what a trial asks (the exact prompt), and what counts as right

A score that could not be given is None with its reason (`scoring.logprob.WeightedScore`, a row's `error`),
never a silent 0.

`write_samples` puts a run's trials on disk before any of them runs
(`<log>.samples.jsonl`): the runner calls it for every `Run.trials`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from .folders import ItemLog


@dataclass(frozen=True)
class Sample:
    """One trial: `id` names it across runs; `input` is the exact prompt (text or chat messages); `target` what
    a right answer holds; `metadata` what else says what the trial is (budget, depth, group)."""

    id: str
    input: Any
    target: Any = None
    metadata: dict = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        """A metadata value by name: `sample["context_tokens"]`."""
        return self.metadata[name]


def samples_path(log: ItemLog) -> Path | None:
    return log.path.with_name(log.path.stem + ".samples.jsonl") if log.path is not None else None


def write_samples(trials: Sequence, log: ItemLog, key: Callable[[Any], tuple], describe: Callable[[Any], dict]) -> None:
    """The trials of a run as one JSON line each (written whole, then moved into place)."""
    path = samples_path(log)
    if path is None:
        return
    lines = []
    for t in trials:
        line = {"key": dict(zip(log.key, key(t))),
                **{k: v for k, v in describe(t).items() if not k.startswith("_")}}
        if isinstance(t, Sample):
            line |= {"id": t.id, "input": t.input, "target": t.target, "metadata": t.metadata}
        lines.append(json.dumps(line, ensure_ascii=False, default=str))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    partial.replace(path)
