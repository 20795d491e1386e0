"""The one trial runner, and the one result type every experiment returns.

    with Run("depth_sweep", run_name) as run:
        items = run.stages(samples, SWEEP, Given(p, judge_model), key=key, describe=describe)
        return run.result(summary=summarize(items), items=items, notes=[...])

`SWEEP` is the experiment's declared stages (lclab.pipeline.Stage): the very values its plan prices.

For every experiment alike, the runner
- resumes: a trial whose key (ending in the fingerprint of what made it) has a
  finished row in the item log is not run again;
- runs each stage over all pending trials before the next one, with a progress
  bar (answers that share a prompt prefix run back to back, and judge prompts
  do not evict that prefix from llama.cpp's KV cache);
- appends each row to the item log the moment it is finished, so a killed run
  loses nothing that was done (and the model cache keeps the calls of a row
  that was half done);
- records a failure with its reason in `error`: the row is kept, never scored,
  and a rerun tries it again;
- counts the run's calls in its own scope of the one ledger and saves them as
  `accounting.csv` beside the results, even when the run fails or is interrupted,
  and appends them to `accounting_log.csv`, one block per invocation, so a warm
  rerun's zero calls never hide what the run cost before (the manifest's
  `accounting_to_date` sums that log);
- refuses to start when the model cache cannot be written, or when another
  process is running in the same run folder (a lock that names it).

Shared columns: one name, one meaning, in every experiment's item rows.

    fingerprint        short hash of everything that made the row (prompt, models, settings)
    error              None, or "<stage>: <ExceptionType>: <message>"; such a row is not scored
    model, judge_model the answering and the judging model specs
    response           the answering model's reply text
    prompt_tokens      prompt tokens of the answering call, chat template included
    completion_tokens  completion tokens of the answering call
    answer_cached      whether the answer came from the model cache
    answer_latency_s   seconds the answering call took when it was made (kept in the cache,
                       so a warm rerun shows the same cost)
    prompt_sha256      hash of the exact prompt the answering call sent; `lclab.runs.manifest.rebuild_prompt`
                       rebuilds that prompt from the run's manifest and the row
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence, TypeVar

import pandas as pd

from .. import paths, recoveries
from ..experiments import Experiment, get as get_experiment
from ..models import ACCOUNTING
from ..models.cache import check_writable
from ..models.replay import replaying
from ..paths import llm_cache_dir
from ..pipeline import Given, Stage
from . import manifest
from .folders import RESCORE_ACCOUNTING, RESCORED, ItemLog, RunLock, json_cells, log_accounting, run_dir, write_atomic
from .index import refresh_index
from .notes import SkippedNote, failure_notes, headline, skipped_note  # noqa: F401 (where experiments find them)
from .samples import check_samples, once_per_trial, write_samples
from .trials import Step, answer_columns, executed, run_trials  # noqa: F401 (where experiments find them)

T = TypeVar("T")


@dataclass
class Result:
    """What an experiment returns: its rows, its headline table, its other tables, and notes for the reader.

    The run has already written every table to `dir` (summary.csv, <name>.csv
    for each of `tables`, accounting.csv); a notebook only displays them.
    """

    experiment: str
    run_name: str
    dir: Path
    summary: pd.DataFrame
    items: pd.DataFrame = field(default_factory=pd.DataFrame)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    accounting: pd.DataFrame = field(default_factory=pd.DataFrame)
    data: dict[str, Any] = field(default_factory=dict)  # what is not a table (a generated QA pair, contexts)
    parameters: dict[str, Any] = field(default_factory=dict)  # as the run was given them (also in manifest.json)

    @property
    def figure_path(self) -> Path:  # figures/<experiment>_<run_name>.png, looked up per call: tests redirect it
        return paths.FIGURES / f"{self.experiment}_{self.run_name}.png"

    @property
    def figure_meta(self) -> dict:
        """What a figure file records of the run that drew it (its metadata, not its title)."""
        models = {k: v for k, v in self.parameters.items() if k.endswith(("model", "models")) and v}
        shown = {k: ", ".join(m.get("model", "?") if isinstance(m, dict) else str(m) for m in v)
                 if isinstance(v, list) else str(v) for k, v in models.items()}
        return {"run": f"{self.experiment}/{self.run_name}", **shown}

    @property
    def failures(self) -> pd.DataFrame:
        """Rows that failed or could not be scored, with the reason (never counted as wrong)."""
        if "error" not in self.items:
            return self.items.iloc[:0]
        return self.items[self.items["error"].notna()]

    def describe(self) -> str:
        return "\n".join(self.notes)

    def __str__(self) -> str:
        return f"{self.experiment}/{self.run_name}: " + self.describe()

    def _repr_html_(self) -> str:
        import html
        return f"<pre>{html.escape(self.describe())}</pre>" + self.summary.round(3).to_html(index=False)


class Run:
    """One run of an experiment: its folder, its item logs, its scope of the ledger."""

    def __init__(self, experiment: "Experiment | str", run_name: str, parameters: dict | None = None):
        """`experiment`: the registered experiment or its name (its folder's, results folder's, figures' prefix);
        `parameters`: its parameters as given (`dataclasses.asdict` of its Parameters), for the manifest."""
        self.spec = experiment if isinstance(experiment, Experiment) else get_experiment(experiment)
        self.experiment = self.spec.name
        self.run_name = run_name
        self.parameters = dict(parameters or {})
        self.dir = run_dir(self.experiment, run_name)
        self.resumed = 0  # trials found finished in the item logs
        self.ran = 0  # trials run now
        self._failures: dict = {}  # failed items and the first error, once the result is known
        self._finished = False

    def __enter__(self) -> "Run":
        # Refused before any work: a cache that cannot be written, or another process in this run folder.
        check_writable(llm_cache_dir())
        self._lock = RunLock(self.dir).acquire()
        self._recoveries = recoveries.mark()
        self.started = datetime.datetime.now()
        self._scope = ACCOUNTING.scope()
        self.ledger = self._scope.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._scope.__exit__(*exc)
            accounting = self._save_accounting()  # also after a failure or an interrupt: what was called
            if not self._finished:
                status = "interrupted" if exc[0] is KeyboardInterrupt else "failed" if exc[0] else "unfinished"
                if status == "failed":  # a stage outside the items failed: its error is the run's first
                    self._failures = {"failed_items": None, "first_error": f"{exc[0].__name__}: {exc[1]}"[:500]}
                self._record(accounting, status, None, self.ran + self.resumed)
        finally:
            self._lock.release()

    def log(self, key: Sequence[str], name: str = "items.jsonl") -> ItemLog:
        return ItemLog(self.dir / name, key)

    def stages(self, samples: Sequence[T], stages: Sequence[Stage], given: Given, **how) -> pd.DataFrame:
        """Execute the declared `stages`, in order, over `samples` (`trials` with each stage as its step)."""
        return self.trials(samples, steps=executed(stages, given), **how)

    def trials(self, trials: Sequence[T], *, log: ItemLog | None = None, **how) -> pd.DataFrame:
        """`run_trials` with this run's item log (items.jsonl unless `log` names another); counts what it resumed.

        Before any trial runs, every trial is written to `<log>.samples.jsonl` beside the log (its key, what
        describes it, and for a `Sample` its exact input and target): what the run will ask is on disk first,
        to count, audit, or rebuild an item's prompt from (`manifest.rebuild_prompt`)."""
        trials = list(trials)
        check_samples(trials)
        log = log or self.log(("fingerprint",))
        how["key"] = once_per_trial(how["key"])
        write_samples(trials, log, how["key"], how["describe"])
        items, resumed = run_trials(trials, log=log, **how)
        self.resumed += resumed
        self.ran += len(trials) - resumed
        return items

    def _save_accounting(self) -> pd.DataFrame:
        """This invocation's accounting table, written beside the results: accounting.csv for a run, and for a
        rescore (a replay) rescore_accounting.csv, so that the run's own record of its cost stays as it was."""
        return self.ledger.save(self.dir, RESCORE_ACCOUNTING if replaying() else "accounting.csv")

    def _record(self, accounting: pd.DataFrame, status: str, headline: dict | None, n_items: int) -> None:
        """Append this invocation to the run's accounting log, then write the manifest (which sums that log)."""
        log_accounting(self.dir, self.started.isoformat(timespec="seconds"),
                       f"{RESCORED}: {status}" if replaying() else status, accounting)
        repaired = recoveries.since(self._recoveries)  # said on the terminal by ./run_all.sh too
        invocation = manifest.Invocation(self.dir, self.experiment, self.run_name, self.parameters, self.started)
        manifest.write(invocation, accounting, status, headline, n_items,
                       trials={"ran": self.ran, "resumed": self.resumed, **self._failures,
                               **({"recovered": repaired} if repaired else {})})

    def _record_throughput(self, accounting: pd.DataFrame) -> None:
        """Keep this machine's measured speeds for later plans: each model's calls, and the embedder's per text."""
        from ..models.llama_engine import threads_limited
        from ..planning.speed import record_embeddings, record_throughput

        if threads_limited():  # held to fewer threads than cores (the test workers): its share, not the machine
            return
        record_embeddings(accounting[accounting["stage"] == "embed"])
        stages = accounting[(accounting["stage"] != "total") & (accounting["stage"] != "embed")]
        for model, calls in stages.groupby(stages["model"].fillna("")):
            if model and "," not in model:  # a stage that asked several models says nothing of either
                record_throughput(model, int(calls["prompt_tokens"].sum()), int(calls["completion_tokens"].sum()),
                                  int(calls["calls"].sum()), float(calls["model_s"].sum()),
                                  self.ledger.priced(calls["stage"]))

    def resume_note(self, log_name: str = "items.jsonl") -> str:
        return (f"{self.ran + self.resumed} trials: {self.resumed} already done in "
                f"{self.dir / log_name} (resumed), {self.ran} run now")

    def result(self, summary: pd.DataFrame, items: pd.DataFrame | None = None,
               tables: dict[str, pd.DataFrame] | None = None, notes: list[str] | None = None,
               data: dict | None = None, headline: dict | None = None) -> Result:
        """Write the summary, every table, the accounting and the manifest to the run folder, refresh the
        index of runs, and return them as a Result. `headline`: {"metric", "value", "lo", "hi"} for the index."""
        tables = tables or {}
        write_atomic(self.dir / "summary.csv", lambda tmp: summary.to_csv(tmp, index=False))
        for name, table in tables.items():
            # A pivot's row labels are data; a plain running index is not.
            write_atomic(self.dir / f"{name}.csv",
                         lambda tmp, t=json_cells(table): t.to_csv(tmp, index=not isinstance(t.index, pd.RangeIndex)))
        accounting = self._save_accounting()
        items = items if items is not None else pd.DataFrame()
        # This run's rows (the item log may also hold rows made with other settings): what comparisons read.
        write_atomic(self.dir / "result_items.jsonl",
                     lambda tmp: items.to_json(tmp, orient="records", lines=True, force_ascii=False))
        failed = items["error"].notna() if "error" in items else pd.Series(False, index=items.index)
        # A run whose items failed says so in its status: "partial" (some) or "failed" (all), with the count
        # and the first error in the manifest; run_all.sh then ends non-zero (lclab.runs.notebooks).
        self._failures = {"failed_items": int(failed.sum()),
                          "first_error": str(items.loc[failed, "error"].iloc[0])[:500] if failed.any() else None}
        if skipped := next((str(n) for n in notes or [] if isinstance(n, SkippedNote)), None):
            self._failures["skipped_files"] = skipped  # said on the terminal by ./run_all.sh
        status = "finished" if not failed.any() else "failed" if failed.all() else "partial"
        self._record(accounting, status, headline, len(items))
        self._finished = True
        self._record_throughput(accounting)
        refresh_index()
        notes = list(notes or []) + failure_notes(items)
        return Result(self.experiment, self.run_name, self.dir, summary, items, tables, notes, accounting,
                      data or {}, self.parameters)
