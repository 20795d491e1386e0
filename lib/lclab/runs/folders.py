"""Run storage: the run folder, the fingerprint of an item, and the append-only item log the runner resumes from."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable

import pandas as pd

from .. import paths
from ..recoveries import appending, recovered, repair_tail
from ..models.replay import replaying
from ..paths import write_atomic  # noqa: F401 (run code finds it here)


def run_dir(experiment: str, run_name: str) -> Path:
    """results/<experiment>/<run_name>/, created on demand."""
    if not run_name or "/" in run_name or run_name.startswith("."):
        raise ValueError(f"run_name {run_name!r} must be a plain folder name")
    path = paths.RESULTS / experiment / run_name  # looked up per call: tests redirect it
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RunFolderError(_unwritable(path, err)) from None
    return path


def _unwritable(path: Path, err: OSError) -> str:
    return (f"the run folder {path} cannot be written ({err.strerror or err}): make it writable, or point "
            "LCLAB_OUTPUT_DIR at a folder you can write (the run's earlier results and executed notebook are kept)")


def fingerprint(*parts) -> str:
    """A short hash of everything that determines an item's result (prompt, models, settings).

    It is part of each item's key, so a rerun with changed settings under the
    same run_name redoes the items instead of resuming rows made another way.
    """
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha1(canonical.encode("utf-8")).hexdigest()[:12]


class ItemLog:
    """An append-only JSONL file of result rows, each identified by a tuple of key columns.

    `done()` tells which keys already have a successful row; rows with an error
    are kept for the record but do not count as done, so a rerun tries them again.
    With `path=None` the rows are kept in memory only (a run that asked for no log).
    """

    def __init__(self, path: Path | None, key: Iterable[str]):
        self.path = Path(path) if path is not None else None
        self.key = tuple(key)
        self._lock = threading.Lock()
        self._memory: list[dict] = []
        self._tail_checked = False
        self._keep_open = False  # inside `appending()`
        self._open = None  # the file, once a row was appended there

    def _key(self, row: dict) -> tuple:
        return tuple(row.get(k) for k in self.key)  # rows from before a key column existed match nothing

    def rows(self) -> list[dict]:
        if self.path is None:
            return list(self._memory)
        if not self.path.exists():
            return []
        rows = []
        with open(self.path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line:
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue  # a line cut short by a kill; its item is simply redone
        return rows

    def done(self, ok_column: str = "error") -> set[tuple]:
        """Keys of the rows finished without an error; none under a replay, which redoes every item from the
        model cache (models.replay)."""
        if replaying():
            return set()
        return {self._key(r) for r in self.rows() if not r.get(ok_column)}

    def append(self, row: dict) -> None:
        if self.path is None:
            with self._lock:
                self._memory.append(dict(row))
            return
        line = json.dumps(row, ensure_ascii=False) + "\n"
        with self._lock:
            if not self._tail_checked:
                # A last line cut without its newline would swallow this row and break every reader of the log.
                self._tail_checked = True
                if said := repair_tail(self.path):
                    recovered(said, stacklevel=4)
            if not self._keep_open:
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(line)
                return
            if self._open is None:  # opened at the first row: a run that writes none leaves no file
                self._open = open(self.path, "a", encoding="utf-8")
            self._open.write(line)
            self._open.flush()  # every row on disk as it is written: a kill loses no finished item

    @contextmanager
    def appending(self):
        """Keep the file open for the appends made inside (a run's items): opening it per row cost more of the
        lab's time per call than the call itself against a fast server. Each row is still flushed as written."""
        with self._lock:
            self._keep_open = True
        try:
            yield self
        finally:
            with self._lock:
                self._keep_open = False
                if self._open is not None:
                    self._open.close()
                    self._open = None

    def latest_rows(self, keys: Iterable[tuple] | None = None) -> list[dict]:
        """One row per key, the last one written: of the given keys in their order (e.g. this run's
        trials), else of every key in the order first written."""
        latest: dict[tuple, dict] = {}
        for row in self.rows():
            latest[self._key(row)] = row
        if keys is None:
            return list(latest.values())
        return [latest[k] for k in dict.fromkeys(keys) if k in latest]

    def latest(self, keys: Iterable[tuple] | None = None) -> pd.DataFrame:
        """`latest_rows` as a table."""
        return pd.DataFrame(self.latest_rows(keys))


class RunLockedError(RuntimeError):
    """Another process is running in the same run folder."""


class RunFolderError(RuntimeError):
    """The run folder (or its lock) cannot be written: nothing of the run can be kept, so it does not start."""


class RunLock:
    """One process at a time in a run folder: two runs appending to one item log would write each row twice.

    The lock is the operating system's (flock), so it goes away with its
    process, even one killed with SIGKILL; the file names who holds it.
    """

    def __init__(self, directory: Path):
        self.path = Path(directory) / ".lock"
        self._fd: int | None = None

    def acquire(self) -> "RunLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise RunFolderError(_unwritable(self.path.parent, err)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 300).decode("utf-8", errors="replace").strip() or "another process"
            os.close(fd)
            raise RunLockedError(f"{self.path.parent} is in use by {holder}: wait for that run to finish, "
                                 "or give this one another run_name") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"process {os.getpid()} on {socket.gethostname()} since {time.strftime('%H:%M:%S')}".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


ACCOUNTING_LOG = "accounting_log.csv"
RESCORED = "rescore"  # an accounting-log status's prefix for a rescore's invocation (runs.rescore)
RESCORE_ACCOUNTING = "rescore_accounting.csv"  # the latest rescore's calls and hits; accounting.csv stays the run's


def log_accounting(directory: Path, started: str, status: str, table: pd.DataFrame) -> None:
    """Append one invocation's accounting (every stage and its total) to the run folder's accounting log.

    accounting.csv holds only the latest invocation, so a warm rerun (0 calls) would otherwise replace the
    record of what a resumed or repeated run really cost; the log keeps every invocation that ended in Python
    (finished, failed or interrupted; a SIGKILL leaves none, though its calls stay in the model cache).
    """
    rows = table.assign(invocation=started, status=status)
    rows = rows[["invocation", "status", *table.columns]]
    path = Path(directory) / ACCOUNTING_LOG
    # A machine-written CSV row cut short cannot be told from a whole one by its fields (a number cut to its
    # first digits still parses): a last line without its newline is always moved aside (whole=None).
    with appending(path, whole=None, newline="") as fh:
        if path.stat().st_size:  # a log begun by an older version keeps its columns (it had no `model` column)
            rows = rows.reindex(columns=pd.read_csv(path, nrows=0).columns)
        rows.to_csv(fh, header=not path.stat().st_size, index=False)


def accounting_to_date(directory: Path) -> dict:
    """The totals of every invocation in the run folder's accounting log: invocations, calls, tokens, time."""
    path = Path(directory) / ACCOUNTING_LOG
    if not path.exists():
        return {}
    totals = pd.read_csv(path).query("stage == 'total'")
    totals = totals[~totals["status"].astype(str).str.startswith(RESCORED)]  # a rescore is no part of the run's cost
    return {"invocations": len(totals),
            **totals.drop(columns=["invocation", "status", "stage"]).sum(numeric_only=True).to_dict()}


def json_cells(table: pd.DataFrame) -> pd.DataFrame:
    """The table with its list and dict cells (a Score's facts, probabilities, found values) written as JSON, so
    that a CSV reader gets them back with json.loads rather than a Python repr."""
    def as_json(v):
        return json.dumps(v, ensure_ascii=False, default=str) if isinstance(v, (list, dict)) else v

    nested = [i for i in range(table.shape[1]) if table.iloc[:, i].dtype == object
              and table.iloc[:, i].map(lambda v: isinstance(v, (list, dict))).any()]
    if not nested:
        return table
    table = table.copy()
    for i in nested:
        table.iloc[:, i] = table.iloc[:, i].map(as_json)
    return table
