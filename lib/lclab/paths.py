"""Where things live: the repo root and its data, results, figures and cache folders."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

# lib/lclab/paths.py -> the repo root is two levels above the package.
REPO = Path(os.environ.get("LCLAB_HOME", Path(__file__).resolve().parents[2]))
DATA = REPO / "data"
# Outputs can be redirected (the tests do, so they never touch the committed figures).
OUTPUT = Path(os.environ.get("LCLAB_OUTPUT_DIR", REPO))
RESULTS = OUTPUT / "results"
FIGURES = OUTPUT / "figures"
PARAMS = REPO / "params"


def llm_cache_dir() -> Path:
    """The model-call cache: $LCLAB_CACHE_DIR or <repo>/.cache/llm."""
    return Path(os.environ.get("LCLAB_CACHE_DIR", REPO / ".cache" / "llm"))


def repo_path(path: str | os.PathLike) -> Path:
    """A path as given if absolute, else relative to the repo root (notebooks run from notebooks/)."""
    path = Path(path).expanduser()
    return path if path.is_absolute() else REPO / path


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """`write(tmp)` then rename over `path`: a full disk or a kill leaves the old file or the new one, never a
    zero-byte or half-written one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
