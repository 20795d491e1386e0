"""Append a measurement's rows to benchmarks/measured/<name>.csv, which docs/benchmarks.md is rendered from.

    python3 benchmarks/measured_rows.py NAME COLUMN=VALUE ...     (one row, from a shell script)

Each row gets the date (UTC), the machine kind (CPU name and cores, as /proc/cpuinfo says) and the commit it
measured, so the page can show the latest run per machine; after appending, run benchmarks/render_page.py.
"""

from __future__ import annotations

import csv
import datetime
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

# benchmarks/fresh_home.sh points a fresh clone's scripts back at the checkout it was cloned from
MEASURED = Path(os.environ.get("LCLAB_MEASURED_DIR", Path(__file__).resolve().parent / "measured"))


def machine() -> str:
    """The machine kind: "AMD EPYC, 2 cores", "Intel Xeon, 2 cores" (vendor and family, no model number)."""
    name = platform.processor() or "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.M)
        name = found.group(1) if found else name
    words = re.sub(r"\((R|TM)\)|\bCPU\b|\bProcessor\b|@.*", " ", name).split()
    return f"{' '.join(words[:2])}, {os.cpu_count()} cores"


def commit() -> str:
    """The short commit of the checkout the script runs from ('' outside git)."""
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=MEASURED, capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else ""


def append(name: str, rows: list[dict]) -> Path:
    """Append rows (dicts of one benchmark's columns) with date, machine and commit in front; the header is
    the file's own when it exists (a column it lacks is an error: the page's spec names the columns)."""
    path = MEASURED / f"{name}.csv"
    stamp = {"date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(), "machine": machine(),
             "commit": commit()}
    full = [{**stamp, **row} for row in rows]
    exists = path.exists()
    if exists:
        with path.open(newline="", encoding="utf-8") as f:
            fields = next(csv.reader(f))
    else:
        fields = list(full[0])
    with path.open("a", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n", restval="")
        if not exists:
            writer.writeheader()
        writer.writerows(full)
    return path


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not all("=" in a for a in argv[1:]):
        print("usage: measured_rows.py NAME COLUMN=VALUE ...")
        return 2
    print(append(argv[0], [dict(a.split("=", 1) for a in argv[1:])]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
