"""A tolerant parser for JSON that models wrap in prose or code fences."""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class JSONParseError(ValueError):
    """The text holds no JSON object we could read."""


def _first_object(text: str) -> str | None:
    """The first balanced {...} span, respecting strings and escapes."""
    start = text.find("{")
    while start != -1:
        depth, in_string, escaped = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_string:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == '"':
                    in_string = False
            elif ch == '"':
                in_string = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def parse_json_object(text: str) -> dict[str, Any]:
    """Read a JSON object from a model reply.

    Tries, in order: the whole text; the inside of a ```json fence; the first
    balanced {...} span.  Small-model habits that break strict JSON are mended
    only where the meaning is unambiguous (Python's True/False/None literals).
    """
    candidates = [text.strip()]
    candidates += [m.strip() for m in _FENCE.findall(text)]
    span = _first_object(text)
    if span:
        candidates.append(span)
    for candidate in candidates:
        for variant in (candidate, _pythonic_literals(candidate)):
            try:
                value = json.loads(variant)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    snippet = text.strip().replace("\n", " ")[:200]
    raise JSONParseError(f"no JSON object in model reply: {snippet!r}")


def _pythonic_literals(text: str) -> str:
    return re.sub(r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", text)))
