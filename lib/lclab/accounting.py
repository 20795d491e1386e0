"""Per-stage bookkeeping of model calls: calls, cache hits, tokens, time, retries, failures.

Every call through the gateway names a stage (`qa_generation`, `answer`, `judge`,
...).  Notebooks end by showing `ACCOUNTING.table()` and saving it next to their
results, so the cost of every number is on record.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field

import pandas as pd


@dataclass
class StageStats:
    calls: int = 0  # requests that reached a model (repairs included)
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
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


class Accounting:
    """Thread-safe counters keyed by stage name."""

    def __init__(self):
        self._lock = threading.Lock()
        self._stages: dict[str, StageStats] = {}

    def reset(self) -> None:
        with self._lock:
            self._stages.clear()

    def _stage(self, stage: str) -> StageStats:
        return self._stages.setdefault(stage, StageStats())

    def span(self, stage: str, start: float, end: float | None = None) -> None:
        """Extend the stage's wall-clock span to cover [start, end]."""
        end = time.perf_counter() if end is None else end
        with self._lock:
            s = self._stage(stage)
            s.first_start = start if s.first_start is None else min(s.first_start, start)
            s.last_end = end if s.last_end is None else max(s.last_end, end)

    def add(self, stage: str, **counts: float) -> None:
        """Add to named counters, e.g. `add("judge", calls=1, prompt_tokens=120)`."""
        with self._lock:
            s = self._stage(stage)
            for name, value in counts.items():
                setattr(s, name, getattr(s, name) + value)

    def get(self, stage: str) -> StageStats:
        with self._lock:
            return StageStats(**asdict(self._stage(stage)))

    def total_calls(self) -> int:
        with self._lock:
            return sum(s.calls for s in self._stages.values())

    def table(self) -> pd.DataFrame:
        """One row per stage plus a total row."""
        with self._lock:
            rows = [
                {
                    "stage": name,
                    "calls": s.calls,
                    "cache_hits": s.cache_hits,
                    "prompt_tokens": s.prompt_tokens,
                    "completion_tokens": s.completion_tokens,
                    "wall_s": round(s.wall_seconds, 2),
                    "model_s": round(s.model_seconds, 2),
                    "retries": s.retries,
                    "repairs": s.repairs,
                    "parse_failures": s.parse_failures,
                    "errors": s.errors,
                }
                for name, s in self._stages.items()
            ]
        columns = ["stage", "calls", "cache_hits", "prompt_tokens", "completion_tokens",
                   "wall_s", "model_s", "retries", "repairs", "parse_failures", "errors"]
        df = pd.DataFrame(rows, columns=columns)
        if not df.empty:
            total = df.drop(columns="stage").sum(numeric_only=True)
            df = pd.concat([df, pd.DataFrame([{"stage": "total", **total.to_dict()}])], ignore_index=True)
        return df


ACCOUNTING = Accounting()


def save_accounting(directory, name: str = "accounting.csv") -> pd.DataFrame:
    """Write the accounting table next to a run's results and return it for display."""
    from pathlib import Path

    table = ACCOUNTING.table()
    table.to_csv(Path(directory) / name, index=False)
    return table
