"""Input files a notebook's parameters name, checked before any model loads: one line naming the file, the
line where it breaks, and what to do, instead of a traceback inside the executed notebook.

    problem = input_file_problem(path)      # None, or why the file cannot be read
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path


def _first_bad_utf8(data: bytes) -> str:
    """Where the first byte that is not UTF-8 sits, as a reader finds it: line and column."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        column = err.start - (before.rfind(b"\n") + 1) + 1
        return f"line {line}, column {column} is not UTF-8 (byte 0x{data[err.start]:02x})"
    return ""


def input_file_problem(path: Path) -> str | None:
    """Why a data file cannot be read (empty, not UTF-8, a CSV without rows, JSON cut short), or None."""
    if not path.is_file():
        return None
    data = path.read_bytes()
    if not data.strip():
        return "the file is empty: it needs its header and rows (the README beside the shipped file shows them)"
    if bad := _first_bad_utf8(data):
        return f"{bad}: save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
    text = data.decode("utf-8")
    if path.suffix == ".csv":
        rows = list(csv.reader(io.StringIO(text)))
        if len(rows) < 2:
            return "the CSV has a header and no rows"
        width = len(rows[0])
        for number, row in enumerate(rows[1:], start=2):
            if row and len(row) != width:
                return f"line {number} has {len(row)} fields, the header {width}: a comma or quote is out of place"
    elif path.suffix == ".json":
        try:
            json.loads(text)
        except json.JSONDecodeError as err:
            return f"line {err.lineno}, column {err.colno}: not valid JSON ({err.msg}); the file may be cut short"
    elif path.suffix == ".jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                if line.strip():
                    json.loads(line)
            except json.JSONDecodeError as err:
                return f"line {number}: not valid JSON ({err.msg}); the file may be cut short"
    return None
