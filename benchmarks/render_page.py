"""Write docs/benchmarks.md from the measured rows: one table per benchmark, the latest measurement per machine kind.

    .venv/bin/python benchmarks/render_page.py          # rewrite docs/benchmarks.md
    .venv/bin/python benchmarks/render_page.py --check  # exit 1 if the page is not what the rows render

The runs are rows in benchmarks/measured/<benchmark>.csv, appended by the scripts that measure them
(benchmarks/measured_rows.py) or by hand with the facts of a run (date, machine, commit, figures). What each
benchmark measures, how to rerun it and which columns it shows is benchmarks/page.yaml. The page is never
edited by hand: tests/test_benchmarks_page.py fails when it differs from what this script renders.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
MEASURED = HERE / "measured"
SPEC = HERE / "page.yaml"
PAGE = HERE.parent / "docs" / "benchmarks.md"


def read_rows(path: Path) -> list[dict[str, str]]:
    """A CSV's rows in file order (the order runs were appended: later rows are later runs)."""
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def latest(rows: list[dict], kind: list[str], measurement: list[str]) -> list[dict]:
    """The rows of the last measurement of each kind, in file order.

    A measurement is the rows sharing the `measurement` columns (a run of several rows, e.g. one per worker
    count); a kind is the rows sharing the `kind` columns (a machine, its build, a warm or cold home)."""
    def key(row, cols):
        return tuple(row.get(c, "") for c in cols) if cols else (id(row),)

    last = {key(r, kind): key(r, measurement) for r in rows}
    return [r for r in rows if last[key(r, kind)] == key(r, measurement)]


def number(text: str) -> str:
    """An integer with thousands separators; anything else as the CSV has it."""
    return f"{int(text):,}" if re.fullmatch(r"-?\d+", text) else text


def cell(row: dict, col: dict) -> str:
    """One column's text: its value with its unit, and its error against another column where `vs` is set."""
    value = row.get(col["col"], "")
    if value == "":
        return ""
    text = number(value)
    unit = col.get("unit", "")
    if unit == "s (min)":  # seconds with minutes beside them: what a reader compares with a clock
        seconds = float(value)
        text += f" s ({seconds / 3600:.1f} h)" if seconds >= 5400 else f" s ({seconds / 60:.1f} min)"
    elif unit:
        text = f"{text} {unit}"
    base = row.get(col.get("vs", ""), "")
    if base:
        text += f" ({(float(value) / float(base) - 1) * 100:+.0f} %)".replace("-", "−")
    return text


def columns(spec: dict) -> list[dict]:
    return [c if isinstance(c, dict) else {"col": c} for c in spec["columns"]]


def table(rows: list[dict], cols: list[dict]) -> list[str]:
    lines = ["| " + " | ".join(c.get("header", c["col"]) for c in cols) + " |",
             "|" + "---|" * len(cols)]
    for row in rows:
        lines.append("| " + " | ".join(cell(row, c).replace("|", "\\|") for c in cols) + " |")
    return lines


def section(spec: dict) -> list[str]:
    rows = read_rows(MEASURED / f"{spec['csv']}.csv")
    shown = latest(rows, spec.get("kind", []), spec.get("measurement", []))
    lines = [f"## {spec['title']}", "", spec["about"].strip(), "", f"rerun: `{spec['rerun']}`", ""]
    lines += table(shown, columns(spec))
    older = len(rows) - len(shown)
    lines += ["", f"{len(shown)} of {len(rows)} rows of `benchmarks/measured/{spec['csv']}.csv`"
                  + (f" (the latest per {', '.join(spec['kind'])}; {older} older)" if older else "") + ".", ""]
    return lines


def anchor(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def render(spec_path: Path = SPEC) -> str:
    spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    lines = ["# Benchmarks", "", spec["intro"].strip(), ""]
    lines += [f"- [{b['title']}](#{anchor(b['title'])})" for b in spec["benchmarks"]] + [""]
    for b in spec["benchmarks"]:
        lines += section(b)
    lines += ["## Scripts whose numbers are on other pages", "", spec["outro"].strip(), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if the page differs")
    args = parser.parse_args(argv)
    page = render()
    if args.check:
        same = PAGE.read_text(encoding="utf-8") == page
        print("docs/benchmarks.md is " + ("up to date" if same else "stale: run benchmarks/render_page.py"))
        return 0 if same else 1
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(HERE.parent)} ({len(page.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
