"""Prompts as named templates, filled with str.format.

Each template is a text file in the `prompts/` folder of the package that owns
it: `lclab/prompts/` holds the shared ones (documents, answers, judges), an
experiment's folder holds its own (`lclab/nli/prompts/nli_pair.txt`). Names
are unique across the library, so a prompt is rendered by name alone.

Templates are plain files so that a prompt can be read, diffed and pinned by a
golden-string test without reading code. Literal braces in a template are
written doubled ({{ }}); substituted values may contain anything.
"""

from __future__ import annotations

import hashlib
import string
from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).parent


@lru_cache(maxsize=1)
def _index() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(_PACKAGE.rglob("prompts/*.txt")):
        if path.stem in found:
            raise RuntimeError(f"two prompt templates are named {path.stem!r}: {found[path.stem]} and {path}")
        found[path.stem] = path
    return found


def names() -> list[str]:
    """Every template's name."""
    return sorted(_index())


def path(name: str) -> Path:
    if name not in _index():
        raise KeyError(f"no prompt template {name!r}; known: {names()}")
    return _index()[name]


@lru_cache(maxsize=None)
def template(name: str) -> str:
    return path(name).read_text(encoding="utf-8").rstrip("\n")


def template_sha256(name: str) -> str:
    """A short hash of the template text: what a run's manifest records of its prompts."""
    return hashlib.sha256(template(name).encode("utf-8")).hexdigest()[:16]


def fields(name: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template(name)) if f}


def render(name: str, **values: object) -> str:
    """Fill template `name`; every field must be given and nothing else."""
    expected = fields(name)
    if set(values) != expected:
        raise TypeError(f"prompt {name!r} takes {sorted(expected)}, got {sorted(values)}")
    return template(name).format(**values)
