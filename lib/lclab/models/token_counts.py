"""Token counts kept on disk, per vocabulary file: every process that plans or fills a budget counts the same
passages and prompts again (a plan, then each notebook's kernel, then a rescore's), llama.cpp tokenizes about
1 MB/s here, and its first call in a process builds its tables (a third of a second). A count is made once per
machine and read back after.

One SQLite file beside the models (~/.cache/lclab/models/token_counts.sqlite, $LCLAB_MODEL_DIR), shared by
clones, test workers and notebook kernels (WAL: readers never wait for a writer). A row is keyed by the vocabulary
file's path, size and modification time (a file fetched again is a new vocabulary: its old rows are never read),
whether special tokens are parsed, and the text's digest. New counts are written in batches, and at exit. Where
the file cannot be opened or written (a read-only model folder, a full disk), counting goes on in memory only: a
lost count is counted again, never wrong.
"""

from __future__ import annotations

import atexit
import os
import sqlite3
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from .local_models import model_dir

FLUSH_EVERY = 256  # new counts held before they are written (one transaction)


@lru_cache(maxsize=None)
def vocabulary_id(path: str) -> str:
    """The vocabulary file as the rows name it: its path, size and modification time (looked up once a process)."""
    stat = os.stat(path)
    return f"{Path(path).resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def counted(vocabulary: Path, special: bool, digest: bytes, tokenize: Callable[[], int]) -> int:
    """The kept count of the text whose digest is given, or tokenize()'s, kept for next time."""
    kept, name = kept_counts(), vocabulary_id(str(vocabulary))
    n = kept.get(name, special, digest)
    if n is None:
        n = tokenize()
        kept.put(name, special, digest, n)
    return n


class TokenCounts:
    """The on-disk counts of one process: get() reads one, put() queues one for the next batch."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._pending: list[tuple[str, int, bytes, int]] = []
        self._db: sqlite3.Connection | None = None
        self._pid: int | None = None
        self._failed = False

    def _connection(self) -> sqlite3.Connection | None:
        if self._failed:
            return None
        if self._db is None or self._pid != os.getpid():  # a forked child opens its own
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE IF NOT EXISTS counts (vocabulary TEXT, special INTEGER, digest BLOB, "
                           "tokens INTEGER, PRIMARY KEY (vocabulary, special, digest)) WITHOUT ROWID")
            except (OSError, sqlite3.Error):
                self._failed = True
                return None
            self._db, self._pid = db, os.getpid()
        return self._db

    def get(self, vocabulary: str, special: bool, digest: bytes) -> int | None:
        with self._lock:
            db = self._connection()
            if db is None:
                return None
            try:
                row = db.execute("SELECT tokens FROM counts WHERE vocabulary = ? AND special = ? AND digest = ?",
                                 (vocabulary, int(special), digest)).fetchone()
            except sqlite3.Error:
                return None
        return None if row is None else int(row[0])

    def put(self, vocabulary: str, special: bool, digest: bytes, tokens: int) -> None:
        with self._lock:
            self._pending.append((vocabulary, int(special), digest, tokens))
            if len(self._pending) >= FLUSH_EVERY:
                self._flush()

    def flush(self) -> None:
        with self._lock:
            self._flush()

    def _flush(self) -> None:
        rows, self._pending = self._pending, []
        db = self._connection() if rows else None
        if db is None:
            return
        try:
            with db:  # one transaction
                db.execute("BEGIN")
                db.executemany("INSERT OR IGNORE INTO counts VALUES (?, ?, ?, ?)", rows)
        except sqlite3.Error:
            pass  # counted again next time: a memo, not a record


_kept: dict[Path, TokenCounts] = {}
_kept_lock = threading.Lock()


def kept_counts() -> TokenCounts:
    """This process's handle on the counts file of the model folder in use."""
    path = model_dir() / "token_counts.sqlite"
    with _kept_lock:
        if path not in _kept:
            _kept[path] = TokenCounts(path)
        return _kept[path]


@atexit.register
def _flush_all() -> None:
    for counts in list(_kept.values()):
        counts.flush()
