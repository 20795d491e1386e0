"""Every model call's exact prompt, on disk before the call: `<log>.prompts.jsonl` beside a run's item log.

A first stage's prompt is its sample's input, already in `<log>.samples.jsonl`; a later one is built during the
run (a RAG answer from the chunks retrieval found, a judge's from the answer): each is written here, one JSON line
per distinct (item key, stage, prompt), before it is sent: the item's key, the gateway stage, the model, the
prompt's sha256 (what an item row's `prompt_sha256` names) and the prompt itself, or `"as_input": true` where it
is the sample's own input (not written twice). A rerun or a rescore asks the same prompts: nothing is appended.
"""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

from ..models.sent import listening
from ..recoveries import appending
from .folders import ItemLog


def prompts_path(log: ItemLog) -> Path | None:
    return log.path.with_name(log.path.stem + ".prompts.jsonl") if log.path is not None else None


class PromptLog:
    """The prompts log of one item log; `recording(key, input)` around a trial's step writes its calls' prompts."""

    def __init__(self, log: ItemLog):
        self.path = prompts_path(log)
        self._lock = threading.Lock()
        self._open = None
        self._seen = {(json.dumps(r["key"], sort_keys=True), r["stage"], r["prompt_sha256"]) for r in read(self.path)}

    @contextlib.contextmanager
    def recording(self, key: dict, sample_input):
        if self.path is None:
            yield
            return
        named = json.dumps(key, sort_keys=True, default=str)

        def heard(stage: str, model: str, prompt, sha: str) -> None:
            mark = (named, stage, sha)
            with self._lock:
                if mark in self._seen:
                    return
                self._seen.add(mark)
                same = prompt == sample_input
                line = {"key": json.loads(named), "stage": stage, "model": model, "prompt_sha256": sha,
                        **({"as_input": True} if same else {"prompt": prompt})}
                self._file().write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
                self._open.flush()  # on disk before the call: a kill mid-call leaves its prompt on record

        with listening(heard):
            yield

    def _file(self):
        """The log, opened at its first line and kept open (held under self._lock): opening it, locking it and
        checking its last line for every call cost 0.3-0.7 ms per call against a fast server, one call at a
        time. Its last line is repaired once, before the first line is appended (a kill cut it short)."""
        if self._open is None:
            with appending(self.path):
                pass
            self._open = open(self.path, "a", encoding="utf-8")
        return self._open

    def close(self) -> None:
        with self._lock:
            if self._open is not None:
                self._open.close()
                self._open = None


def read(path: Path | None) -> list[dict]:
    """The prompts log's lines (a line cut short by a kill is left out: its call was never sent)."""
    if path is None or not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out
