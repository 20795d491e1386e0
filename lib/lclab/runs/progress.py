"""./run_all.sh's live line per notebook: calls done of planned, elapsed, the notebook's time left and the run's.

The runner plans every notebook before the first runs (lclab.planning, as `--plan` does, no model called). While
papermill runs a notebook's kernel, the kernel appends one line per call to a file the runner names
(lclab.models.accounting.CALLS_FILE_ENV), and the runner reads it every second. Time left is the plan's remaining
seconds scaled by how long the calls done so far took against what the plan gave them (elapsed / their planned
seconds, the kernel's start included); where the plan cannot price a stage (a served model's hardware), by the pace
of the calls made so far. The run's time left adds the notebooks still to come, scaled the same way by the run so
far. On a terminal the line is rewritten in place; elsewhere (a log, CI) a plain line is printed at most every
`LCLAB_PROGRESS_EVERY` seconds (30) and one at the notebook's end.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from ..models.accounting import CALLS_FILE_ENV
from ..models.specs import scrub

EVERY_ENV = "LCLAB_PROGRESS_EVERY"


@dataclass
class Planned:
    """One notebook's plan: per plan row with calls, (gateway stage, calls to make, seconds, NaN when unknown)."""

    stages: list[tuple[str, int, float]] = field(default_factory=list)
    calls: int = 0  # every call the plan counts, cached ones included (what "calls done" counts towards)
    start: float = 0.0  # seconds outside the calls: the kernel's start, imports, model loads

    @property
    def priced(self) -> bool:
        return all(not math.isnan(s) for _, _, s in self.stages)

    @property
    def seconds(self) -> float:
        return self.start + sum(s for _, _, s in self.stages) if self.priced else math.nan


def planned(rows: list[dict]) -> Planned:
    """A notebook's plan rows (lclab.planning.experiment_plan.plan_notebook) as the live line reads them."""
    plan = Planned()
    for r in rows:
        if r["stage"].startswith("start"):
            plan.start += r["seconds"]
            continue
        stage = r.get("gateway_stage") or r["stage"].split(" (")[0].split(",")[0]  # an embed row has none
        to_make = r["calls"] - r["cached"]  # none to make: no time, even where the plan could not have priced one
        plan.stages.append((stage, to_make, float(r["seconds"]) if to_make else 0.0))
        plan.calls += r["calls"]
    return plan


@dataclass
class Estimate:
    done: int  # calls made and cache hits so far
    left: float  # seconds, NaN when unknown
    spent_plan: float  # the plan's seconds for what is done (NaN where the plan cannot price it)


def estimate(plan: Planned, seen: dict[str, list[float]], elapsed: float) -> Estimate:
    """What is done and how long the rest takes, from the calls seen so far: {stage: [made, cache hits]}."""
    done = int(sum(m + h for m, h in seen.values()))
    made = {stage: m for stage, (m, _) in seen.items()}
    spent = rest = 0.0
    to_make = 0
    for stage, n, seconds in plan.stages:
        share = min(made.get(stage, 0), n)  # a stage's calls fill its rows in plan order
        made[stage] = made.get(stage, 0) - share
        to_make += n - share
        if n and not math.isnan(seconds):
            spent, rest = spent + seconds * share / n, rest + seconds * (n - share) / n
    if not plan.priced:  # the pace of the calls made so far, after the kernel's start
        calls = sum(m for m, _ in seen.values())
        pace = max(elapsed - plan.start, 0) / calls if calls else math.nan
        return Estimate(done, to_make * pace if to_make else 0.0, math.nan)
    if not done:  # still starting: the start's seconds not yet spent, then every call
        return Estimate(0, max(plan.start - elapsed, 0) + rest, 0.0)
    spent += plan.start
    return Estimate(done, rest * (elapsed / spent if spent else 1.0), spent)


def clock(seconds: float) -> str:
    if math.isnan(seconds):
        return "?"
    minutes, s = divmod(int(round(seconds)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{s:02d}" if minutes >= 60 else f"{minutes}:{s:02d}"


class Calls:
    """The calls file of one notebook's kernel, read as it grows: {stage: [made, cache hits]}."""

    def __init__(self, path: Path):
        self.path, self.seen, self._offset, self._rest = path, {}, 0, b""

    def read(self) -> dict[str, list[float]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:  # no call yet
            return self.seen
        self._offset += len(data)
        *whole, self._rest = (self._rest + data).split(b"\n")  # a line being written is read next time
        for line in whole:
            try:
                stage, made, hits = json.loads(line)
            except ValueError:  # not the kernel's line (the file is the runner's to name): not a call
                continue
            tally = self.seen.setdefault(stage, [0, 0])
            tally[0], tally[1] = tally[0] + made, tally[1] + hits
        return self.seen


class Watch:
    """The live lines of one invocation of the runner: `with watch.notebook(stem, calls_file):` around each."""

    def __init__(self, plans: list[tuple[Path, dict]], defaults: Callable[[Path], dict], out: TextIO = sys.stdout,
                 made: dict[str, Planned] | None = None):
        """`made`: the notebooks' plans, when made already (else planned here, plan_profile)."""
        self.out, self.tty = out, out.isatty()
        self.every = 1.0 if self.tty else float(os.environ.get(EVERY_ENV, 30))
        self.plans = plan_profile(plans, defaults, out) if made is None else made
        self.order = [nb.stem for nb, _ in plans]
        self.finished = [0.0, 0.0]  # elapsed, and the plan's seconds, of the notebooks run with a priced plan

    @contextlib.contextmanager
    def notebook(self, stem: str, calls_file: Path):
        calls_file = Path(calls_file).resolve()
        calls_file.unlink(missing_ok=True)
        os.environ[CALLS_FILE_ENV] = str(calls_file)  # the kernel inherits it
        calls, stop, started = Calls(calls_file), threading.Event(), time.monotonic()
        ticker = threading.Thread(target=self._tick, args=(stem, calls, started, stop), daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join(timeout=5)
            os.environ.pop(CALLS_FILE_ENV, None)
            line = self.line(stem, calls.read(), time.monotonic() - started, final=True)
            print(self._in_place(line) if self.tty else line, file=self.out, flush=True)
            calls_file.unlink(missing_ok=True)
            if stem in self.plans and self.plans[stem].priced:
                self.finished = [self.finished[0] + time.monotonic() - started,
                                 self.finished[1] + self.plans[stem].seconds]

    def _tick(self, stem: str, calls: Calls, started: float, stop: threading.Event) -> None:
        """Every second on a terminal (rewritten in place), every `every` seconds elsewhere (a line each)."""
        while not stop.wait(self.every):
            line = self.line(stem, calls.read(), time.monotonic() - started)
            self.out.write(self._in_place(line) if self.tty else f"{line}\n")
            self.out.flush()

    @staticmethod
    def _in_place(line: str) -> str:
        """The line over the one before, cut to the terminal's width (a wrapped line would not be rewritten)."""
        return f"\r{line[:shutil.get_terminal_size().columns - 1]}\x1b[K"

    def line(self, stem: str, seen: dict[str, list[float]], elapsed: float, final: bool = False) -> str:
        """The notebook's line: calls done of planned, elapsed, its time left (at its end: what the plan gave it),
        and the run's time left."""
        plan = self.plans.get(stem)
        if plan is None:
            done = int(sum(m + h for m, h in seen.values()))
            return f"   {stem}: {done} calls, {clock(elapsed)} elapsed" + ("" if final else ", ? left")
        now = estimate(plan, seen, elapsed)
        if final:
            later = self._later(stem, elapsed, plan.seconds)
            return (f"   {stem}: {now.done}/{plan.calls} calls, {clock(elapsed)} elapsed "
                    f"(plan ~{clock(plan.seconds)}); run ~{clock(later)} left")
        run = now.left + self._later(stem, elapsed, now.spent_plan)
        return (f"   {stem}: {now.done}/{plan.calls} calls, {clock(elapsed)} elapsed, ~{clock(now.left)} left; "
                f"run ~{clock(run)} left")

    def _later(self, stem: str, elapsed: float, spent: float) -> float:
        """The planned seconds of the notebooks after `stem`, scaled by the run so far (elapsed / planned)."""
        after = self.order[self.order.index(stem) + 1:]
        later = [self.plans[s].seconds if s in self.plans else math.nan for s in after]
        ran, priced = self.finished[0], self.finished[1]
        if not math.isnan(spent) and spent > 0:
            ran, priced = ran + elapsed, priced + spent
        return sum(later) * (ran / priced if priced else 1.0)


def plan_profile(plans: list[tuple[Path, dict]], defaults: Callable[[Path], dict], out: TextIO) -> dict[str, Planned]:
    """Every notebook's plan, as `--plan` makes it, with a line of its totals; none, said in a line, when a plan
    cannot be made (the run goes on). Made in a child process (forked): the tokenizers a plan reads stayed in the
    runner otherwise, ~240 MB for the default profile, beside the kernels and their models for the whole run."""
    import multiprocessing

    for stream in (out, sys.stdout, sys.stderr):
        stream.flush()  # the child's copy of an unflushed buffer would be printed twice
    fork = multiprocessing.get_context("fork")
    receive, send = fork.Pipe(duplex=False)
    child = fork.Process(target=_plan_into, args=(send, plans, defaults), daemon=True)
    try:
        child.start()
        send.close()
        try:
            made, why = receive.recv()
        except EOFError:  # it ended before sending (killed, out of memory)
            made, why = None, "the planning process ended without a plan"
        child.join()
    except KeyboardInterrupt:  # Ctrl-C while planning (the child has it too): the runner's own line
        print("\n!! interrupted before the first notebook: nothing ran", file=sys.stderr)
        raise SystemExit(130) from None
    if made is None:
        print(f"   (no plan for the live lines: {why})", file=out, flush=True)
        return {}
    priced = [p.seconds for p in made.values() if p.priced]
    time_ = f"~{clock(sum(priced))}" if len(priced) == len(made) else \
        f"~{clock(sum(priced))} + what it cannot price" if priced else "time not known before its calls"
    print(f"   plan: {sum(p.calls for p in made.values())} calls, {time_} (./run_all.sh --plan: per stage)",
          file=out, flush=True)
    return made


def _plan_into(send, plans: list[tuple[Path, dict]], defaults: Callable[[Path], dict]) -> None:
    """In the child: the plans (one scope, as --plan: a call one notebook makes is a cache hit for the next), sent
    back as {notebook: Planned}, or None and why."""
    from ..planning import machine
    from ..planning.experiment_plan import plan_notebook
    from ..planning.plan import new_plan, plan_scope
    from .preflight import models_to_load

    try:
        machine.ensure_for(models_to_load(defaults(nb) | params for nb, params in plans))
        new_plan()
        with plan_scope():
            made = {nb.stem: planned(plan_notebook(nb.stem, params, defaults(nb))) for nb, params in plans}
        send.send((made, None))
    except KeyboardInterrupt:
        os._exit(130)  # the runner says it
    except Exception as err:  # noqa: BLE001  (the live line is a convenience: a plan that fails stops no run)
        # (scrubbed: a served model's spec in the message may hold a password)
        send.send((None, f"{type(err).__name__}: {scrub(str(err))}"))
