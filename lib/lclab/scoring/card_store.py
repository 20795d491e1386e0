"""Where a judge's card verdicts are kept: one JSON line per judged text, per judge model and kind, in
~/.cache/lclab/judge_cards/<judge>/<kind>.jsonl ($LCLAB_CARD_DIR), keyed by the exact prompt's hash."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
from pathlib import Path


def card_root() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lclab" / "judge_cards"
    return Path(os.environ.get("LCLAB_CARD_DIR", default))


def store_name(judge: str) -> str:
    """The folder name of one judge's verdicts (the spec hashed: a URL's credentials never reach a file name, and
    two servers of one model name never share a folder)."""
    from ..models.specs import parse_spec
    from ..runs.naming import model_slug

    spec = parse_spec(judge)
    public = spec.raw if spec.backend != "openai" else f"{spec.model}@{spec.public_base_url()}"
    return f"{model_slug(public)}-{hashlib.sha256(public.encode()).hexdigest()[:8]}"


def store_path(judge: str, kind: str) -> Path:
    """Where one judge's verdicts on one kind's texts are kept."""
    return card_root() / store_name(judge) / f"{kind}.jsonl"


def prompt_id(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]


def read_verdicts(path: Path) -> dict[str, dict]:
    """prompt id -> the verdict kept for it (a damaged line, from a kill mid-write, is skipped and redone)."""
    kept = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                kept[row["prompt"]] = row
            except (ValueError, KeyError, TypeError):
                continue
    return kept


def kept_verdicts(judge: str, kind: str) -> dict[str, dict]:
    """This machine's verdicts of `judge` on `kind`'s texts."""
    return read_verdicts(store_path(judge, kind))


@contextlib.contextmanager
def judging(path: Path):
    """One process at a time judges one card's texts (an flock beside its verdicts, gone with its process): two
    notebooks or test workers that need the same card at once would otherwise both ask every prompt; the second
    waits, then reads the first one's verdicts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"judge card {path.parent.name}/{path.stem}: another process is judging its texts; waiting for "
                  "its verdicts", file=sys.stderr)
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
