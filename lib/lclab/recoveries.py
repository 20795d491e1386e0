"""What the lab repaired by itself while it ran (a damaged model-cache entry asked again, an item-log line cut
short moved aside): each is warned where it happens, so the notebook shows it, and kept here, so the run's
manifest records it and ./run_all.sh says it on the terminal (lclab.runs.manifest.terminal_notes_since)."""

from __future__ import annotations

import threading
import warnings

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
