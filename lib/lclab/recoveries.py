"""What the lab repaired by itself while it ran (a damaged model-cache entry asked again, an item-log line cut
short moved aside): each is warned where it happens, so the notebook shows it, and kept here, so the run's
manifest records it and ./run_all.sh says it on the terminal (lclab.runs.manifest.terminal_notes_since).

Here too is the one repair every append-only log gets before it is appended to (`repair_tail`, `appending`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import warnings
from pathlib import Path
from typing import Callable

_said: list[str] = []
_lock = threading.Lock()


def recovered(message: str, category: type[Warning] = UserWarning, stacklevel: int = 3) -> None:
    """Say what was repaired: a warning where it happened, and a line for the run's record."""
    with _lock:
        _said.append(message)
    warnings.warn(message, category, stacklevel=stacklevel)


def mark() -> int:
    """Where the record stands now (a run keeps it at its start)."""
    with _lock:
        return len(_said)


def since(start: int) -> list[str]:
    """Every repair said since `start`, in order."""
    with _lock:
        return list(_said[start:])


def _json_row(fragment: bytes) -> bool:
    """Whether a JSONL file's last line, left without its newline, is a whole row (only the newline missing)."""
    try:
        json.loads(fragment)
    except ValueError:  # UnicodeDecodeError included: a write cut inside a character
        return False
    return True


def repair_tail(path: Path, whole: Callable[[bytes], bool] | None = _json_row) -> str | None:
    """The one repair of an append-only log (JSONL or CSV) before anything is appended to it: a last line left
    without its newline (a kill -9 or a full disk mid-write) would have the next row glued to it, and that line
    then breaks every strict reader of the file (`pd.read_json(lines=True)`, `pd.read_csv`) and is lost to the
    lenient ones. A last line `whole` accepts (only its newline missing; a hand-saved file) gets its newline; any
    other is moved to `<file>.damaged` beside it. Returns what was done, for the record, or None when the file
    ended whole. Cheap when it did: one byte is read."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            if fh.seek(0, os.SEEK_END) == 0:
                return None
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) == b"\n":
                return None
            fh.seek(0)
            data = fh.read()  # a cut line is rare: read the whole file once to find where it starts
    except FileNotFoundError:
        return None
    start = data.rfind(b"\n") + 1
    fragment = data[start:]
    if whole is not None and whole(fragment):
        with open(path, "ab") as fh:
            fh.write(b"\n")
        return f"{path.name}: its last line had no newline; one was added (the line was whole and is kept)"
    damaged = path.with_name(path.name + ".damaged")
    with open(damaged, "ab") as out:
        out.write(fragment + b"\n")
    with open(path, "rb+") as fh:
        fh.truncate(start)
    return (f"{path.name}: its last line was cut short ({len(fragment)} bytes, from an interrupted write); "
            f"moved to {damaged.name}")


@contextlib.contextmanager
def appending(path: Path, whole: Callable[[bytes], bool] | None = _json_row, newline: str | None = None):
    """`path` opened to append text to, its last line repaired first (repair_tail, said with `recovered`); under
    an flock held while the block runs, so that a repair never cuts the line another process is writing (a
    shared store: served token counts, a judge card's verdicts) and two appenders' lines never interleave."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8", newline=newline) as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            if said := repair_tail(path, whole):
                recovered(said, stacklevel=5)
            yield fh
            fh.flush()
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
