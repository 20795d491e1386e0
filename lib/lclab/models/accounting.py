"""Per-stage bookkeeping of model calls: calls, cache hits, tokens, time, retries, failures.

Every call through the gateway names a stage (`qa_generation`, `answer`, `judge`,
...). There is one ledger, `ACCOUNTING`; a part of a run that needs its own
counts (a run, one configuration of a timed comparison) opens a scope of it:

    with ACCOUNTING.scope() as ledger:     # counts what is called inside, in any worker thread
        ...
    ledger.table()                         # that part's calls, tokens and time per stage

The calls made inside a scope count in the scope and in every scope around it.
Beside the counters, the ledger keeps each (stage, model)'s requests by their
cache key, made or read from the cache (`requests.csv`): the distinct ones are
what a cold cache would call, whatever an earlier session left in it.
Worker threads see the scopes of the code that started them when they are
started through `lclab.runs.parallel.map_items`.
"""

from __future__ import annotations

import contextvars
import json
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Iterator

import pandas as pd

from ..paths import write_atomic


@dataclass
class StageStats:
    calls: int = 0  # requests that reached a model (repairs included)
    cache_hits: int = 0
    prompt_tokens: int = 0  # of the calls made
    completion_tokens: int = 0
    # Sum of each call's prompt tokens squared: attention makes long prompts dearer per token, and the
    # run plans (lclab.planning.plan) need it to learn this machine's speed. Kept out of accounting.csv.
    prompt_tokens_sq: int = 0
    # The calls as a plan prices them (Accounting.priced; kept out of accounting.csv too): the prompt tokens read
    # after each call's prefix kept in an embedded model's KV cache, the sum of those positions' squares
    # (n^2 - kept^2), and the reply tokens decoded under a JSON grammar or scored for their logprobs.
    read_prompt_tokens: int = 0
    read_prompt_tokens_sq: int = 0
    grammar_tokens: int = 0
    scored_tokens: int = 0
    cached_prompt_tokens: int = 0  # of the replies served from the cache (paid for by an earlier run)
    cached_completion_tokens: int = 0
    model_seconds: float = 0.0  # summed latency of the calls; exceeds wall time when concurrent
    retries: int = 0
    repairs: int = 0  # replies that failed parsing/validation and were asked again once
    parse_failures: int = 0
    errors: int = 0
    first_start: float | None = field(default=None, repr=False)
    last_end: float | None = field(default=None, repr=False)

    @property
    def wall_seconds(self) -> float:
        if self.first_start is None or self.last_end is None:
            return 0.0
        return self.last_end - self.first_start

    @property
    def all_prompt_tokens(self) -> int:
        """Prompt tokens of every reply used, whether it was called now or read from the cache."""
        return self.prompt_tokens + self.cached_prompt_tokens

    @property
    def all_completion_tokens(self) -> int:
        return self.completion_tokens + self.cached_completion_tokens


COUNTERS = [f.name for f in fields(StageStats) if f.name not in ("first_start", "last_end")]
PRICED = ["prompt_tokens_sq", "read_prompt_tokens", "read_prompt_tokens_sq", "grammar_tokens", "scored_tokens"]
COLUMNS = ["stage", "calls", "cache_hits", "prompt_tokens", "completion_tokens", "cached_prompt_tokens",
           "cached_completion_tokens", "wall_s", "model_s", "retries", "repairs", "parse_failures", "errors", "model"]

REQUEST_COLUMNS = ["stage", "model", "requests", "distinct_requests"]


def requests_file(accounting_file: str) -> str:
    """The requests table saved beside an accounting table: requests.csv, rescore_requests.csv."""
    return accounting_file.replace("accounting", "requests")


# The scopes open in this context (a run, a configuration), innermost last.
_open_scopes: contextvars.ContextVar[tuple["Accounting", ...]] = contextvars.ContextVar("lclab_scopes", default=())


class Accounting:
    """Thread-safe counters keyed by stage name."""

    def __init__(self):
        self._lock = threading.Lock()
        self._stages: dict[str, StageStats] = {}
        self._endpoints: dict[str, StageStats] = {}  # per replica of a served model
        self._models: dict[str, set[str]] = {}  # stage -> the models it asked (a plan's speeds are per model)
        # (stage, model) -> [requests asked, their cache keys' first 16 hex digits]
        self._requests: dict[tuple[str, str], list] = {}

    def reset(self) -> None:
        with self._lock:
            self._stages.clear()
            self._endpoints.clear()
            self._models.clear()
            self._requests.clear()

    def _targets(self) -> tuple["Accounting", ...]:
        return (self, *_open_scopes.get()) if self is ACCOUNTING else (self,)

    def span(self, stage: str, start: float, end: float | None = None) -> None:
        """Extend the stage's wall-clock span to cover [start, end]."""
        end = time.perf_counter() if end is None else end
        for ledger in self._targets():
            with ledger._lock:
                s = ledger._stages.setdefault(stage, StageStats())
                s.first_start = start if s.first_start is None else min(s.first_start, start)
                s.last_end = end if s.last_end is None else max(s.last_end, end)

    def add(self, stage: str, **counts: float) -> None:
        """Add to named counters, e.g. `add("judge", calls=1, prompt_tokens=120)`."""
        self._bump("_stages", stage, counts)
        if self is ACCOUNTING and ("calls" in counts or "cache_hits" in counts):
            _tell(stage, counts.get("calls", 0), counts.get("cache_hits", 0))

    def note_model(self, stage: str, model: str) -> None:
        """Record that `stage` asked `model` (its row's `model` column; a run's speed is recorded per model)."""
        for ledger in self._targets():
            with ledger._lock:
                ledger._models.setdefault(stage, set()).add(model)

    def note_request(self, stage: str, model: str, key: str) -> None:
        """Record that `stage` asked `model` the request whose cache key is `key`, whether it is then called or read
        from the cache: a plan counts requests, and the distinct keys are the calls a cold cache would make."""
        for ledger in self._targets():
            with ledger._lock:
                ledger._models.setdefault(stage, set()).add(model)
                asked = ledger._requests.setdefault((stage, model), [0, set()])
                asked[0] += 1
                asked[1].add(key[:16])  # 64 bits: no two of a run's requests share them

    def requests(self, stage: str, model: str) -> tuple[int, int]:
        """(requests, distinct requests) `stage` asked `model`."""
        with self._lock:
            asked, keys = self._requests.get((stage, model), (0, ()))
            return asked, len(keys)

    def requests_table(self) -> pd.DataFrame:
        """One row per (stage, model) asked: its requests, and how many distinct ones (REQUEST_COLUMNS)."""
        with self._lock:
            rows = [(stage, model, asked, len(keys)) for (stage, model), (asked, keys) in self._requests.items()]
        return pd.DataFrame(rows, columns=REQUEST_COLUMNS)

    def models_of(self, stage: str) -> set[str]:
        with self._lock:
            return set(self._models.get(stage, ()))

    def add_endpoint(self, endpoint: str, **counts: float) -> None:
        """Count a request to one replica of a served model (calls, errors, tokens, model_seconds)."""
        self._bump("_endpoints", endpoint, counts)

    def _bump(self, table: str, key: str, counts: dict) -> None:
        unknown = set(counts) - set(COUNTERS)
        if unknown:
            raise ValueError(f"no counter(s) {sorted(unknown)}; known: {COUNTERS}")
        for ledger in self._targets():
            with ledger._lock:
                s = getattr(ledger, table).setdefault(key, StageStats())
                for name, value in counts.items():
                    setattr(s, name, getattr(s, name) + value)

    @contextmanager
    def scope(self) -> Iterator["Accounting"]:
        """A fresh ledger that also receives everything counted while the block runs."""
        ledger = Accounting()
        token = _open_scopes.set((*_open_scopes.get(), ledger))
        try:
            yield ledger
        finally:
            _open_scopes.reset(token)

    def get(self, stage: str) -> StageStats:
        with self._lock:
            return StageStats(**asdict(self._stages.get(stage, StageStats())))

    def priced(self, stages) -> dict[str, int]:
        """The `stages`' calls as a plan prices them, summed (PRICED: lclab.planning.speed.record_throughput)."""
        counted = [self.get(stage) for stage in stages]
        return {k: sum(getattr(c, k) for c in counted) for k in PRICED}

    def stages(self) -> list[str]:
        with self._lock:
            return list(self._stages)

    def total_calls(self) -> int:
        with self._lock:
            return sum(s.calls for s in self._stages.values())

    def endpoint_table(self) -> pd.DataFrame:
        """One row per replica of a served model that was called: requests, failures, tokens, model time."""
        with self._lock:
            rows = [{"endpoint": url, "calls": e.calls, "errors": e.errors, "prompt_tokens": e.prompt_tokens,
                     "completion_tokens": e.completion_tokens, "model_s": round(e.model_seconds, 2)}
                    for url, e in self._endpoints.items()]
        return pd.DataFrame(rows, columns=["endpoint", "calls", "errors", "prompt_tokens", "completion_tokens",
                                           "model_s"])

    def table(self) -> pd.DataFrame:
        """One row per stage plus a total row."""
        with self._lock:
            rows = [{"stage": name, **{c: getattr(s, c) for c in COUNTERS if c != "model_seconds"},
                     "wall_s": round(s.wall_seconds, 2), "model_s": round(s.model_seconds, 2),
                     "model": ", ".join(sorted(self._models.get(name, ())))}
                    for name, s in self._stages.items()]
        df = pd.DataFrame(rows, columns=COLUMNS)
        # zeros when nothing was counted: a run with no calls says so
        total = {c: df[c].sum() for c in COLUMNS[1:-1]} | {"model": ""}
        df = pd.concat([df, pd.DataFrame([{"stage": "total", **total}])], ignore_index=True)
        counts = [c for c in COLUMNS[1:-1] if c not in ("wall_s", "model_s")]
        return df.astype({c: int for c in counts}).round({"wall_s": 2, "model_s": 2})

    def save(self, directory: str | Path, name: str = "accounting.csv") -> pd.DataFrame:
        """Write the table next to a run's results, its requests beside it (requests_file), and `endpoints.csv` when
        served replicas were called; return the table for display."""
        table, requests = self.table(), self.requests_table()
        write_atomic(Path(directory) / name, lambda tmp: table.to_csv(tmp, index=False))
        write_atomic(Path(directory) / requests_file(name), lambda tmp: requests.to_csv(tmp, index=False))
        endpoints = self.endpoint_table()
        if len(endpoints):
            write_atomic(Path(directory) / "endpoints.csv", lambda tmp: endpoints.to_csv(tmp, index=False))
        return table


ACCOUNTING = Accounting()

# The runner behind ./run_all.sh names a file here for the notebook it runs (lclab.runs.progress): the kernel appends
# a line per call to it, [stage, calls made, cache hits], and the runner, another process, reads them for its live
# line. A line each (not a table rewritten): a call costs one small write to a file kept open.
CALLS_FILE_ENV = "LCLAB_CALLS_FILE"
_told: dict = {"path": None, "file": None}
_told_lock = threading.Lock()


def _tell(stage: str, calls: float, hits: float) -> None:
    path = os.environ.get(CALLS_FILE_ENV)
    if not path:
        return
    with _told_lock:
        if _told["path"] != path:
            if _told["file"] is not None:
                _told["file"].close()
            _told.update(path=path, file=None)
            try:
                _told["file"] = open(path, "a", encoding="utf-8")
            except OSError as err:  # the live line only shows less; the run's own records are untouched
                import warnings

                warnings.warn(f"the runner's calls file {path} cannot be written ({err}): its live line stops")
        if _told["file"] is not None:
            _told["file"].write(json.dumps([stage, calls, hits]) + "\n")
            _told["file"].flush()
