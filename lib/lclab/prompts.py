"""Prompts as named templates: `lib/lclab/prompts/<name>.txt`, filled with str.format.

Templates are plain files so that a prompt can be read, diffed and pinned by a
golden-string test without reading code.  Literal braces in a template are
written doubled ({{ }}); substituted values may contain anything.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

_DIR = Path(__file__).with_name("prompts")


@lru_cache(maxsize=None)
def template(name: str) -> str:
    path = _DIR / f"{name}.txt"
    if not path.exists():
        known = sorted(p.stem for p in _DIR.glob("*.txt"))
        raise KeyError(f"no prompt template {name!r}; known: {known}")
    return path.read_text(encoding="utf-8").rstrip("\n")


def fields(name: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template(name)) if f}


def render(name: str, **values: object) -> str:
    """Fill template `name`; every field must be given and nothing else."""
    expected = fields(name)
    if set(values) != expected:
        raise TypeError(f"prompt {name!r} takes {sorted(expected)}, got {sorted(values)}")
    return template(name).format(**values)
