"""Every finished run's items in one SQLite file, rebuilt from the run folders: what the explorer serves and any
SQL tool can read. It is a copy, never the only one: the run folders stay the record, and
`python -m lclab.explore --rebuild` writes the file again from them.

Tables (one row per ...):

    runs        run (experiment/run_name), experiment, run_name, status, model, judge, started, ended, items,
                headline (the run's one number as its manifest states it)
    items       item of any experiment: run, experiment, item_file (the log it came from: items, closed_book, ...),
                item_id (the sample's id), cluster (the experiment's independent unit), model, axes (JSON of the
                experiment's own axes: depth, length, k, task, ...), prompt (the exact prompt sent), reply,
                verdict and verdict_p (the judged column and its probability), string_match, judge_vs_match
                ("agree" / "disagree" where both exist), label (the maintainer's label, where one is filed),
                judge_vs_label, unscored (why an item has no score), highlight (text the prompt marks: the gold)
    <experiment>__<item_file>
                the same items with every column of the experiment's own rows (every score, its probability and
                reason), beside the common columns above: what the explorer facets by axis
    summaries   each run's summary.csv row, with `items`: the address of the items behind that cell
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd

from .. import paths
from ..experiments import discover, find
from ..runs.folders import ItemLog
from ..runs.prompts_log import read as read_prompts
from ..scoring import labels as label_files
from ..scoring.labels import read_label_file, row_key
from .lists import column_order

DATABASE = "lab"  # the name the explorer serves the file under: /lab/<table>
COMMON = ["run", "experiment", "item_file", "item_id", "cluster", "model", "axes", "prompt", "reply", "verdict",
          "verdict_p", "string_match", "judge_vs_match", "label", "judge_vs_label", "unscored", "highlight",
          "label_kind", "label_key"]
REPLY_COLUMNS = ("response", "answer", "reply", "output", "generated")
GOLD_COLUMNS = ("gold", "reference", "needle", "answer_gold", "expected")
ERROR_COLUMNS = ("error", "judge_error", "score_error", "skipped")
NOT_AXES = {"qa_id", "question", "gold", "response", "prompt_sha256", "fingerprint", "error", "judge_error"}


def store_path() -> Path:
    """Where the store lives: results/lab.sqlite beside the run folders it is built from."""
    return paths.RESULTS / "lab.sqlite"


def _jsonl(path: Path) -> list[dict]:
    """A JSONL log's rows as the runner reads them (a line cut by a killed run skipped: the runner redoes it)."""
    return ItemLog(path, ()).rows()


def _prompt_text(prompt) -> str:
    if isinstance(prompt, list):  # chat messages (or several prompts of one item)
        return "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" if isinstance(m, dict)
                           else _prompt_text(m) for m in prompt)
    if isinstance(prompt, dict):
        return json.dumps(prompt, ensure_ascii=False, indent=1)
    return "" if prompt is None else str(prompt)


def _samples_by_key(path: Path) -> dict[tuple, dict]:
    """A run's samples by their key fields' values (what each item row carries too)."""
    if not path.exists():
        return {}
    return {tuple(sorted((k, json.dumps(v)) for k, v in s.get("key", {}).items())): s for s in _jsonl(path)}


def _sample_of(row: dict, samples: dict[tuple, dict], key_fields: list[str]) -> dict | None:
    return samples.get(tuple(sorted((k, json.dumps(row.get(k))) for k in key_fields)))


def _labels(name: str) -> pd.Series | None:
    path = label_files.LABELS / f"{name}.csv"
    return read_label_file(path) if path.exists() else None


def _agree(a, b) -> str | None:
    if a is None or b is None or (isinstance(a, float) and a != a) or (isinstance(b, float) and b != b):
        return None
    return "agree" if bool(a) == bool(b) else "disagree"


def item_rows(folder: Path, item_file: Path, manifest: dict) -> list[dict]:
    """One run's items of one log (`items.jsonl`, `closed_book.jsonl`, ...), each with the common columns first."""
    experiment = find(manifest.get("experiment", folder.parent.name))
    series = experiment.series if experiment else None
    parameters = manifest.get("parameters", {})
    samples = _samples_by_key(item_file.with_suffix(".samples.jsonl"))
    key_fields = [k for k, _ in next(iter(samples))] if samples else []
    # The prompts built during the run (a RAG answer's, from the chunks retrieval found), by their hash
    sent = {p["prompt_sha256"]: p["prompt"] for p in read_prompts(item_file.with_suffix(".prompts.jsonl"))
            if "prompt" in p}
    value = series.value if series else None
    cluster = series.cluster if series and series.cluster else "qa_id"
    axes = list(dict.fromkeys([*(series.split if series else ()), *([series.x] if series and series.x else [])]))
    labels = _labels(series.labels[0]) if series and series.labels else None
    rows = _jsonl(item_file)
    if key_fields:  # an item redone (a resumed or rescored run) is appended again: its last row is the one
        latest = {tuple(json.dumps(r.get(k)) for k in key_fields): r for r in rows}
        rows = list(latest.values())
    out = []
    for i, row in enumerate(rows):
        sample = _sample_of(row, samples, key_fields) if key_fields else None
        reply = next((row[c] for c in REPLY_COLUMNS if c in row), None)
        label = key = None
        if series and series.labels:
            fields = {f: row.get(f, row.get("gold") if f == "reference" else None) for f in series.labels[1]}
            if all(v is not None for v in fields.values()):
                key = row_key(fields | {"answerable": row.get("answerable")}, series.labels[1])
                label = labels.get(key) if labels is not None else None
        verdict = row.get(value) if value else None
        row_axes = {a: row.get(a) for a in [*axes, *key_fields] if a in row and a not in NOT_AXES}
        common = {
            "run": f"{folder.parent.name}/{folder.name}", "experiment": folder.parent.name,
            "item_file": item_file.stem, "item_id": (sample or {}).get("id") or f"{item_file.stem}:{i}",
            "cluster": None if row.get(cluster) is None else str(row.get(cluster)),
            "model": row.get("model") or parameters.get("model"), "axes": json.dumps(row_axes, default=str),
            "prompt": _prompt_text(sent.get(row.get("prompt_sha256"), (sample or {}).get("input"))),
            "reply": None if reply is None else str(reply),
            "verdict": verdict, "verdict_p": row.get(f"{value}_p") if value else None,
            "string_match": row.get("string_match"), "judge_vs_match": _agree(verdict, row.get("string_match")),
            "label": None if label is None else int(label), "judge_vs_label": _agree(verdict, label),
            "unscored": next((str(row[c]) for c in ERROR_COLUMNS if row.get(c)), None)
                        or (None if verdict is not None or not value else f"no {value}"),
            "highlight": next((str(row[c]) for c in GOLD_COLUMNS if isinstance(row.get(c), str)), None),
            "label_kind": series.labels[0] if key else None, "label_key": key}
        out.append(common | {k: v for k, v in row.items() if k not in common})
    return out


def _summary_rows(folder: Path, axis_names: set[str]) -> list[dict]:
    """summary.csv's rows, each with the address of its items (filtered on the item axes the row names)."""
    path = folder / "summary.csv"
    if not path.exists():
        return []
    try:
        table = pd.read_csv(path)
    except (ValueError, pd.errors.ParserError):
        return []
    experiment, run = folder.parent.name, f"{folder.parent.name}/{folder.name}"
    items = table_name(experiment, "items")
    out = []
    for record in table.to_dict("records"):
        shown = {k: v for k, v in record.items() if not (isinstance(v, float) and v != v)}
        axes = {k: v for k, v in shown.items() if k in axis_names}
        link = f"/{DATABASE}/{items}?" + urlencode({"run": run, **{k: _plain(v) for k, v in axes.items()}})
        out.append({"run": run, "experiment": experiment, "row": json.dumps(shown, default=str), "items": link})
    return out


def _plain(value):
    return int(value) if isinstance(value, float) and value.is_integer() else value


def table_name(experiment: str, item_file: str) -> str:
    return f"{experiment}__{item_file}"


SUMMARY_COLUMNS = ["run", "experiment", "row", "items"]
RUN_COLUMNS = ["run", "experiment", "run_name", "status", "model", "judge", "started", "ended", "items", "headline"]


def _run_row(folder: Path, manifest: dict, n_items: int) -> dict:
    parameters = manifest.get("parameters", {})
    return {"run": f"{folder.parent.name}/{folder.name}", "experiment": folder.parent.name, "run_name": folder.name,
            "status": manifest.get("status"), "model": parameters.get("model"),
            "judge": parameters.get("judge_model") or None, "started": manifest.get("started"),
            "ended": manifest.get("ended"), "items": n_items, "headline": _headline(manifest.get("headline"))}


def _headline(said: dict | None) -> str | None:
    """A run's one number as its manifest states it: "<metric>: 0.280 [-0.468, 1.000]"."""
    if not said or said.get("value") is None:
        return None
    shown = [f"{said[k]:.3f}" if isinstance(said.get(k), (int, float)) else "?" for k in ("value", "lo", "hi")]
    return f"{said.get('metric')}: {shown[0]} [{shown[1]}, {shown[2]}]"


def run_folders(results: Path | None = None) -> list[Path]:
    """Every run folder (results/<experiment>/<run>/ holding a manifest)."""
    return sorted(p.parent for p in (results or paths.RESULTS).glob("*/*/manifest.json"))


def folder_tables(folder: Path) -> dict[str, pd.DataFrame] | None:
    """One run folder's rows of every table of the store, as stored (None: no readable manifest)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    every, by_table, axis_names = [], {}, set()
    for item_file in sorted(folder.glob("*.jsonl")):
        if item_file.name.endswith(".samples.jsonl") or item_file.stem == "result_items" \
                or not item_file.with_suffix(".samples.jsonl").exists():
            continue
        rows = item_rows(folder, item_file, manifest)
        by_table.setdefault(table_name(folder.parent.name, item_file.stem), []).extend(rows)
        every.extend({c: r[c] for c in COMMON} for r in rows)
        axis_names |= {a for r in rows for a in json.loads(r["axes"])}
    out = {"runs": pd.DataFrame([_run_row(folder, manifest, len(every))], columns=RUN_COLUMNS),
           "items": _listed(pd.DataFrame(every, columns=COMMON)),
           "summaries": pd.DataFrame(_summary_rows(folder, axis_names), columns=SUMMARY_COLUMNS)}
    for name, rows in by_table.items():
        experiment = find(name.partition("__")[0])
        out[name] = _listed(pd.DataFrame(rows), experiment.series.value if experiment and experiment.series else None)
    return out


def build(target: Path | None = None, results: Path | None = None) -> Path:
    """Write the store from the run folders (to a temporary file, then moved into place: a reader never sees half
    of it). Returns its path."""
    discover()
    target = target or store_path()
    tables: dict[str, list[pd.DataFrame]] = {"runs": [], "items": [], "summaries": []}
    for folder in run_folders(results):
        for name, frame in (folder_tables(folder) or {}).items():
            tables.setdefault(name, []).append(frame)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    partial.unlink(missing_ok=True)
    empty = {"runs": RUN_COLUMNS, "items": COMMON, "summaries": SUMMARY_COLUMNS}
    with sqlite3.connect(partial) as db:
        for name, frames in tables.items():
            frames = [f for f in frames if len(f)] or [pd.DataFrame(columns=empty.get(name, []))]
            joined = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
            _write(db, name, joined if name in ("runs", "summaries") else joined[_first_seen(frames)])
    os.replace(partial, target)
    return target


def _first_seen(frames: list[pd.DataFrame]) -> list[str]:
    """The columns of several runs' rows of one table, each where the first run that has it puts it."""
    return list(dict.fromkeys(c for f in frames for c in f.columns))


def record_label(kind: str, key: str, label: int | None, db_file: Path | None = None) -> int:
    """A label just filed (or, None, taken back), shown at once: every row of the store whose text it labels gets
    it, with its agreement with the judge's verdict (the desk calls this; a rebuild reads the label file anyway).
    Returns the rows set."""
    db_file = db_file or store_path()
    if not db_file.exists():
        return 0
    changed = 0
    with sqlite3.connect(db_file) as db:
        for (name,) in db.execute("select name from sqlite_master where type='table'").fetchall():
            columns = {c[1] for c in db.execute(f'pragma table_info("{name}")')}
            if {"label", "judge_vs_label", "verdict", "label_kind", "label_key"} <= columns:
                changed += db.execute(
                    f'update "{name}" set label = ?, judge_vs_label = case when verdict is null or ? is null then null '
                    "when (verdict != 0) = (? != 0) then 'agree' else 'disagree' end "
                    "where label_kind = ? and label_key = ?", (label, label, label, kind, key)).rowcount
    return changed


def _listed(table: pd.DataFrame, value: str | None = None) -> pd.DataFrame:
    """An item table with its columns in the order a list shows them (lclab.explore.lists); `value`: the column
    the experiment's verdict is (shown as `verdict`)."""
    return table[column_order(table, (value, f"{value}_p") if value else ())]


def _write(db: sqlite3.Connection, name: str, table: pd.DataFrame, append: bool = False) -> None:
    """A table as SQLite holds it: lists and dicts as JSON text, booleans as 0/1, labels as integers (a column
    of none would be text, and a label the desk writes into it later would read "1")."""
    if "label" in table:
        table["label"] = pd.to_numeric(table["label"], errors="coerce").astype("Int64")
    for column in table.columns:
        if table[column].map(lambda v: isinstance(v, (list, dict))).any():
            table[column] = table[column].map(lambda v: json.dumps(v, default=str) if isinstance(v, (list, dict))
                                              else v)
    table.to_sql(name, db, index=False, if_exists="append" if append else "replace")
