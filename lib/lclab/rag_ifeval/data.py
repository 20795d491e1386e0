"""RAG-IFEval's data in its official format, checked on load.

    documents.jsonl   one object per line: {"id": ..., "contents": "..."}
    samples.json      a JSON list (a JSONL file is read too) of
                      {"id", "question", "context": [doc ids in prompt order],
                       "expect": {condition: argument}}

Every problem is reported with the file, the sample and the field, before any
model is called.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..text.polish_phrases import normalize
from .rules import CONDITIONS


class DataError(ValueError):
    """A malformed benchmark file; the message names the file, the sample and the field."""


@dataclass(frozen=True)
class BenchmarkItem:
    """One record of samples.json as the benchmark defines it (the lab's trial is a `runs.samples.Sample`
    built from it: `rag_ifeval.run.prepare`)."""

    id: str
    question: str
    context: tuple[str, ...]  # document ids, in the file's order
    expect: dict


def _read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise DataError(f"{path}: not UTF-8 text (byte {err.start}): re-save it as UTF-8") from err
    except FileNotFoundError as err:
        raise DataError(f"{path}: no such file") from err


def load_documents(path: str | Path) -> dict[str, str]:
    """{document id: contents}; ids are compared as strings."""
    docs: dict[str, str] = {}
    for n, line in enumerate(_read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}, line {n}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(f"{where}: not JSON ({err.msg})") from err
        if not isinstance(row, dict) or "id" not in row or "contents" not in row:
            raise DataError(f"{where}: a document needs 'id' and 'contents'")
        if not isinstance(row["contents"], str) or not row["contents"].strip():
            raise DataError(f"{where}: document {row['id']!r} has empty 'contents'")
        doc_id = str(row["id"])
        if doc_id in docs:
            raise DataError(f"{where}: document id {doc_id!r} appears twice")
        docs[doc_id] = row["contents"]
    if not docs:
        raise DataError(f"{path}: no documents")
    return docs


def _phrases(value, field: str) -> list:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{field} must be a non-empty list of phrases (or of lists of alternatives)")
    for entry in value:
        alternatives = [entry] if isinstance(entry, str) else entry
        if not isinstance(alternatives, list) or not alternatives:
            raise ValueError(f"{field}: {entry!r} is neither a phrase nor a non-empty list of alternatives")
        for phrase in alternatives:
            if not isinstance(phrase, str) or not normalize(phrase):
                raise ValueError(f"{field}: {phrase!r} has no letters or digits to match")
    return value


def _check_sample(raw, docs: dict[str, str]) -> BenchmarkItem:
    if not isinstance(raw, dict):
        raise ValueError("a sample must be an object")
    missing = [k for k in ("id", "question", "context", "expect") if k not in raw]
    if missing:
        raise ValueError(f"missing field(s) {missing}")
    if not isinstance(raw["question"], str) or not raw["question"].strip():
        raise ValueError("field 'question' must be non-empty text")
    context = raw["context"]
    if not isinstance(context, list) or not context:
        raise ValueError("field 'context' must be a non-empty list of document ids")
    context = tuple(str(d) for d in context)
    unknown = [d for d in context if d not in docs]
    if unknown:
        raise ValueError(f"field 'context': unknown document id(s) {unknown}")
    expect = raw["expect"]
    if not isinstance(expect, dict) or not expect:
        raise ValueError("field 'expect' must be a non-empty object of conditions")
    for name, arg in expect.items():
        field = f"field 'expect.{name}'"
        if name not in CONDITIONS:
            raise ValueError(f"{field}: unknown condition {name!r}; known: {', '.join(CONDITIONS)}")
        if name in ("include", "exclude"):
            _phrases(arg, field)
        elif name == "cite":
            if not isinstance(arg, list):
                raise ValueError(f"{field} must be a list of document ids")
            outside = [d for d in map(str, arg) if d not in context]
            if outside:
                raise ValueError(f"{field}: document(s) {outside} are not in the sample's context")
        elif not isinstance(arg, bool):
            raise ValueError(f"{field} must be true or false, not {arg!r}")
    if "cite" in expect:
        expect = {**expect, "cite": [str(d) for d in expect["cite"]]}
    return BenchmarkItem(str(raw["id"]), raw["question"], context, expect)


def load_samples(path: str | Path, docs: dict[str, str]) -> list[BenchmarkItem]:
    """The samples, each checked against the documents; DataError names the first bad one."""
    text = _read_text(path)
    try:
        if text.lstrip().startswith("["):
            raws = json.loads(text)
        else:  # JSON lines, the form the benchmark's README names
            raws = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as err:
        raise DataError(f"{path}: not a JSON list of samples (line {err.lineno}: {err.msg})") from err
    samples, seen = [], set()
    for n, raw in enumerate(raws, 1):
        label = f"sample {raw.get('id')!r} (#{n})" if isinstance(raw, dict) else f"sample #{n}"
        try:
            sample = _check_sample(raw, docs)
        except ValueError as err:
            raise DataError(f"{path}: {label}: {err}") from err
        if sample.id in seen:
            raise DataError(f"{path}: {label}: id appears twice")
        seen.add(sample.id)
        samples.append(sample)
    if not samples:
        raise DataError(f"{path}: no samples")
    return samples


def load_badwords(path: str | Path) -> frozenset[str]:
    """The offensive-word dictionary as lemmas: one word per line, '#' starts a comment."""
    out = set()
    for n, line in enumerate(_read_text(path).splitlines(), 1):
        word = line.split("#", 1)[0].strip().lower()
        if not word:
            continue
        lemmas = normalize(word).split()
        if len(lemmas) != 1:
            raise DataError(f"{path}, line {n}: {word!r} is not a single word")
        out.add(lemmas[0])
    return frozenset(out)
