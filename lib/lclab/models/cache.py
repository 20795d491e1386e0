"""A disk cache for model calls: one JSON file per request, written atomically.

The key is the request itself (a dict of everything that changes the output);
its canonical JSON is hashed into a file name.  Writes go to a temporary file
and are renamed into place, so several threads or several notebooks sharing one
cache directory never see a half-written entry and never need a lock.

An entry that was damaged anyway (truncated by a full disk, overwritten by hand)
is a miss: reported once, asked again, and rewritten; never a crash.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

from ..recoveries import recovered
from .errors import CacheError


def request_key(request: dict[str, Any]) -> str:
    """Hash a request dict into a stable hex key (order of dict keys does not matter)."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CorruptCacheEntry(UserWarning):
    """A cache entry that could not be read; it is treated as a miss and rewritten."""


_reported: set[Path] = set()
_reported_lock = threading.Lock()


def _report_corrupt(path: Path, why: str) -> None:
    with _reported_lock:
        if path in _reported:
            return
        _reported.add(path)
    recovered(f"model cache entry {path} is damaged ({why}): treated as a miss, asked again and rewritten",
              CorruptCacheEntry, stacklevel=4)


def check_writable(directory: str | os.PathLike) -> None:
    """Raise CacheError, saying what to do, when the cache folder cannot be created or written."""
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise CacheError(f"the model cache folder {directory} is not writable ({err.strerror or err}): "
                         "point LCLAB_CACHE_DIR at a folder you can write") from err


class DiskCache:
    """`get(request)` / `put(request, value)` over a directory of JSON files.

    `required`: the keys every stored value has; an entry without them is damaged.
    """

    def __init__(self, directory: str | os.PathLike, required: tuple[str, ...] = ()):
        self.directory = Path(directory)
        self.required = required

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, request: dict[str, Any], key: str | None = None) -> dict[str, Any] | None:
        """The value stored under `request` (`key`: its request_key, when the caller has it), or None."""
        path = self._path(key or request_key(request))
        try:
            with open(path, encoding="utf-8") as fh:
                entry = json.load(fh)
        except FileNotFoundError:
            return None
        except (ValueError, OSError) as err:  # bad JSON, bad UTF-8, unreadable
            _report_corrupt(path, f"{type(err).__name__}: {err}")
            return None
        value = entry.get("value") if isinstance(entry, dict) else None
        if not isinstance(value, dict) or any(k not in value for k in self.required):
            _report_corrupt(path, f"no value with {list(self.required)}")
            return None
        return value

    def put(self, request: dict[str, Any], value: dict[str, Any], key: str | None = None) -> None:
        path = self._path(key or request_key(request))
        # One write of the whole entry (json.dump writes a long prompt in hundreds of pieces), under a name no
        # other thread or process writes to, then renamed into place.
        tmp = path.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}-{path.name}")
        text = json.dumps({"request": request, "value": value}, ensure_ascii=False)
        try:
            try:
                tmp.write_text(text, encoding="utf-8")
            except FileNotFoundError:  # the entry's folder is not there yet
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("*/*.json"))
