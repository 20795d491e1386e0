"""A disk cache for model calls: one JSON file per request, written atomically.

The key is the request itself (a dict of everything that changes the output);
its canonical JSON is hashed into a file name.  Writes go to a temporary file
and are renamed into place, so several threads or several notebooks sharing one
cache directory never see a half-written entry and never need a lock.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def request_key(request: dict[str, Any]) -> str:
    """Hash a request dict into a stable hex key (order of dict keys does not matter)."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class DiskCache:
    """`get(request)` / `put(request, value)` over a directory of JSON files."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, request: dict[str, Any]) -> dict[str, Any] | None:
        path = self._path(request_key(request))
        try:
            with open(path, encoding="utf-8") as fh:
                return json.load(fh)["value"]
        except FileNotFoundError:
            return None
        except (json.JSONDecodeError, KeyError):
            # A corrupt entry (disk full, killed mid-copy by hand) is a miss, not a crash.
            return None

    def put(self, request: dict[str, Any], value: dict[str, Any]) -> None:
        path = self._path(request_key(request))
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"request": request, "value": value}, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("*/*.json"))
