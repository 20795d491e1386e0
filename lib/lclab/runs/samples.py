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
from typing import Any, Callable, Sequence, TypeVar

from .folders import ItemLog

T = TypeVar("T")


@dataclass(frozen=True)
class Sample:
    """One trial: `id` names it across runs; `input` is the exact input of its first model stage (the prompt as
    text or chat messages; for a RAG trial, the query its retrieval embeds); `target` what a right answer holds;
    `metadata` what else says what the trial is (budget, depth, and `cluster`: its independent unit), all
    JSON. `source` is the experiment's own record the sample was made from (a document set, a QA pair), for its
    later steps to read; it is not written to the samples file."""

    id: str
    input: Any
    target: Any = None
    metadata: dict = field(default_factory=dict)
    source: Any = field(default=None, compare=False, repr=False)

    def __getitem__(self, name: str) -> Any:
        """A metadata value by name: `sample["context_tokens"]`."""
        return self.metadata[name]


def samples_path(log: ItemLog) -> Path | None:
    return log.path.with_name(log.path.stem + ".samples.jsonl") if log.path is not None else None


def check_samples(trials: Sequence) -> None:
    """Refuse trials that are not Samples: what a run asks must be on disk, exactly, before it asks."""
    wrong = next((t for t in trials if not isinstance(t, Sample)), None)
    if wrong is not None:
        raise TypeError(f"a run's trials are lclab.runs.samples.Sample objects (id, input, target, metadata); got "
                        f"a {type(wrong).__name__}: build them in the experiment's prepare step")


def write_samples(trials: Sequence[Sample], log: ItemLog, key: Callable[[Any], tuple],
                  describe: Callable[[Any], dict]) -> None:
    """The trials of a run as one JSON line each (written whole, then moved into place): the key, the
    describing columns, and each Sample's id, input, target and metadata (never its `source`). Trials already in
    the file under other keys stay: one log can hold several runs' trials (05's configs), and each trial's prompt
    must stay on disk beside the rows and the prompts log that name it."""
    path = samples_path(log)
    if path is None:
        return
    written = {}
    for t in trials:
        line = {"key": dict(zip(log.key, key(t))), **describe(t), "id": t.id, "input": t.input, "target": t.target,
                "metadata": t.metadata}
        written[json.dumps(line["key"], sort_keys=True, default=str)] = json.dumps(line, ensure_ascii=False,
                                                                                   default=str)
    lines = [*(line for named, line in _lines_by_key(path).items() if named not in written), *written.values()]
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    partial.replace(path)


def _lines_by_key(path: Path) -> dict[str, str]:
    """The samples file's lines by their key (a line cut short, or a file not there yet: nothing)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        try:
            out[json.dumps(json.loads(line)["key"], sort_keys=True, default=str)] = line
        except (ValueError, KeyError, TypeError):
            continue
    return out


def once_per_trial(key: Callable[[T], tuple]) -> Callable[[T], tuple]:
    """`key`, computed once per trial object: a key fingerprints the trial's whole prompt (tens of kilobytes at
    long lengths), and the samples file, the resume check, the rows and the reading back each ask for it."""
    if getattr(key, "once", False):
        return key
    memo: dict[int, tuple] = {}
    kept: list = []  # the trials themselves, so that no id is reused while the memo lives

    def keyed(trial: T) -> tuple:
        found = memo.get(id(trial))
        if found is None:
            found = memo[id(trial)] = key(trial)
            kept.append(trial)
        return found

    keyed.once = True
    return keyed
