"""How the runner executes stages over trials: each declared Stage as a Step, and `run_trials`, which runs
every pending trial through them (lclab.runs.runner.Run.stages is where experiments call it)."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

import pandas as pd

from ..models.errors import ITEM_ERRORS
from ..pipeline import Given, Stage
from .folders import ItemLog
from .parallel import map_items
from .prompts_log import PromptLog
from .samples import once_per_trial

T = TypeVar("T")


@dataclass(frozen=True)
class Step(Generic[T]):
    """A stage as the runner executes it: `fn(trial, row)` returns the columns it adds (a dict).

    A stage that cannot score a trial may return {"error": "..."}; one that raises one of
    `models.errors.ITEM_ERRORS` fails its trial (any other exception is a bug and stops the run). Either way
    the row is written with its reason and the later stages skip it. Every column a stage returns is written:
    a later stage reads what the earlier ones wrote (the row), or the trial's Sample, and nothing else.
    """

    name: str
    fn: Callable[[T, dict], dict | None]
    workers: int = 1

    @classmethod
    def of(cls, stage: Stage, given: Given) -> "Step":
        """The declared `stage` as run under `given`: its `write`, or a first stage's answer columns; nothing for
        a sample it is not asked for (`stage.when`)."""
        def fn(s, row: dict) -> dict | None:
            if not stage.asked(s):
                return {}
            return stage.write(given, s, row) if stage.write is not None else answer_columns(stage.ask(given.p, s))

        return cls(stage.name, fn, stage.concurrency(given.p))


def answer_columns(reply) -> dict:
    """The shared columns of an answering call (see the module docstring)."""
    latency = reply.call_latency_s if reply.call_latency_s is not None else reply.latency_s
    return {"response": reply.text, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens, "answer_cached": reply.cached,
            "answer_latency_s": round(latency, 3) if latency is not None else None,
            "prompt_sha256": reply.prompt_sha256, **({"reply_note": reply.note} if reply.note else {})}


def executed(stages: Sequence[Stage], given: Given) -> list[Step]:
    """The declared `stages` as the runner executes them under `given` (run_trials' steps)."""
    return [Step.of(stage, given) for stage in stages]


def run_trials(trials: Sequence[T], *, log: ItemLog, key: Callable[[T], tuple], describe: Callable[[T], dict],
               steps: Sequence[Step], stop_on: tuple[type[BaseException], ...] = (),
               quiet: bool = False) -> tuple[pd.DataFrame, int]:
    """Run every trial not already finished in `log`: (the latest row of every trial, how many were resumed).

    `key(trial)` gives the values of the log's key columns; `describe(trial)`
    the columns that say what the trial is. Errors of a `stop_on` type stop
    the run at once (they would fail every trial alike).
    """
    trials = list(trials)
    key = once_per_trial(key)
    done = log.done()
    pending = [t for t in trials if key(t) not in done]
    rows = [{**dict(zip(log.key, key(t))), **describe(t), "error": None} for t in pending]
    alive = list(range(len(pending)))
    with closing(PromptLog(log)) as prompts:  # every call's prompt on disk before the call
        for n, step in enumerate(steps):
            def work(i: int, step: Step = step, last: bool = n == len(steps) - 1) -> bool:
                """Run one step of trial i; True when the trial goes on to the next step."""
                try:
                    with prompts.recording(dict(zip(log.key, key(pending[i]))), getattr(pending[i], "input", None)):
                        rows[i].update(step.fn(pending[i], rows[i]) or {})
                except stop_on:
                    raise
                except ITEM_ERRORS as err:  # recorded in the row, never scored; anything else is a bug and stops
                    rows[i]["error"] = f"{step.name}: {type(err).__name__}: {err}"
                if last or rows[i]["error"]:
                    log.append(rows[i])
                    return False
                return True

            # Whatever escapes `work` is not the item's doing: it stops the run, never drops a row without a word.
            with log.appending():
                outcomes = map_items(work, alive, step.workers, desc=step.name, quiet=quiet, stop_on=(Exception,))
            alive = [o.item for o in outcomes if o.value]
    return log.latest(key(t) for t in trials), len(trials) - len(pending)
