"""The one trial type and the one score type every experiment can share.

    Sample(id, input, target, metadata)               what a trial asks, of what, and what counts as right
    Score(value, answer, explanation, metadata)       what scoring one answer gave; Score.unscored(reason)
                                                      when it could not be scored

A metric leaves unscored answers out and counts them (`scored_values`): a
parse failure or a failed call is never a silent 0.

`write_samples` puts a run's trials on disk before any of them runs
(`<log>.samples.jsonl`): the runner calls it for every `Run.trials`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

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


@dataclass(frozen=True)
class Score:
    """The result of scoring one answer. `value` None means unscored, and `explanation` then says why."""

    value: float | bool | None
    answer: str | None = None
    explanation: str | None = None
    metadata: dict = field(default_factory=dict)

    @classmethod
    def unscored(cls, reason: str, answer: str | None = None, **metadata) -> "Score":
        return cls(None, answer, reason, metadata)

    @property
    def scored(self) -> bool:
        return self.value is not None


def scored_values(scores: Iterable[Score]) -> tuple[list[float], int]:
    """(the values of the scored answers, how many could not be scored)."""
    scores = list(scores)
    values = [float(s.value) for s in scores if s.scored]
    return values, len(scores) - len(values)


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
