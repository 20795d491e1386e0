"""What a reader needs to know where a passage stands: its document's title and the section heading above it.

A question written from a passage alone says "the library" or "this project" (on a user's manuals, 7 of 10
rejected pairs were not self-contained); given the title and the heading, a generator can name what it asks
about, and a reviewer can judge the question as a reader of the whole collection would.

Headings are read the way plain-text formats write them: Markdown's `#`, reStructuredText's underlined lines,
and numbered section lines ("4.2 Binary packages") standing alone between blank lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

from .corpus import Corpus, Document

_MARKDOWN = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-~^*#+])\1{2,}\s*$")
_NUMBERED = re.compile(r"^\s*(\d+(\.\d+)*\.?|[A-Z]\.(\d+\.)*|Chapter \d+\.?)\s+\S.{0,80}$")
MAX_HEADING_WORDS = 12


@dataclass(frozen=True)
class Where:
    """A passage's place: its document's title and the nearest heading above it ("" when there is none)."""

    title: str
    heading: str


def _headings(text: str) -> list[tuple[int, str]]:
    """(offset, heading) for every heading line of a text, in order."""
    lines = text.split("\n")
    out, offset = [], 0
    for i, line in enumerate(lines):
        below = lines[i + 1] if i + 1 < len(lines) else ""
        above = lines[i - 1] if i else ""
        found = None
        if m := _MARKDOWN.match(line):
            found = m.group(1)
        elif line.strip() and _UNDERLINE.match(below) and len(line.split()) <= MAX_HEADING_WORDS \
                and not _UNDERLINE.match(line):
            found = line.strip()
        elif _NUMBERED.match(line) and not above.strip() and not below.strip() \
                and len(line.split()) <= MAX_HEADING_WORDS and not line.rstrip().endswith((".", ",", ";")):
            found = line.strip()
        if found:
            out.append((offset, re.sub(r"[*_`]+", "", found).strip()))
        offset += len(line) + 1
    return out


def title_of(doc: Document) -> str:
    """The document's title: its first heading where it opens with one, else its file name as words."""
    first = _headings(doc.text[:2000])
    if first and first[0][0] < 400:
        return first[0][1]
    stem = PurePath(doc.source or doc.id).stem
    return re.sub(r"[_\-]+", " ", stem).strip() or doc.id


def places(corpus: Corpus, pool: list[Document]) -> dict[str, Where]:
    """Each passage's Where, by passage id. `pool`: passages in their documents' order (`passages(corpus, n)`, or
    any subset of it kept in that order): each is looked for after the one before it in the same document."""
    by_source = {d.source: d for d in corpus.documents}
    out, cursor, heads = {}, {}, {}
    for passage in pool:
        doc = by_source.get(passage.source)
        if doc is None:
            out[passage.id] = Where(PurePath(passage.source or passage.id).stem, "")
            continue
        start = doc.text.find(passage.text[:60], cursor.get(doc.source, 0))
        start = start if start >= 0 else cursor.get(doc.source, 0)
        cursor[doc.source] = start + 1
        if doc.source not in heads:
            heads[doc.source] = _headings(doc.text)
        above = [h for at, h in heads[doc.source] if at <= start + 1] if start else []
        out[passage.id] = Where(title_of(doc), above[-1] if above else "")
    return out
