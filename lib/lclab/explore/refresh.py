"""The store kept in step with the run folders while the explorer serves it: a run rescored (new summary rows, a
new headline, items rewritten) or finished after the explorer started is read again before the next page, without
a restart.

Each page request first compares every run folder's files (their sizes and modification times) with what the
store was built or last refreshed from; a changed run's rows are replaced in the live file, in one transaction, in
every table that holds them (the runs row, its items, its summary rows); a new run's are added. Datasette keeps
its connections to the file open, so the file is changed in place, never swapped for a rebuilt copy.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from .store import _write, folder_tables, run_folders, store_path


def stamp(folder: Path) -> tuple:
    """What a run folder's contents are read as having changed by: its files' names, sizes and mtimes."""
    return tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()
                        if p.is_file() and p.suffix in (".json", ".jsonl", ".csv")
                        and not p.name.startswith("desk_skips_")))  # the desk's own record, not the run's


class Refresher:
    """Call it before a page: it reads again every run folder that changed since the last call (or the build) and
    returns their names."""

    def __init__(self, db_file: Path | None = None, results: Path | None = None):
        self.db_file, self.results = db_file or store_path(), results
        self.known = {folder: stamp(folder) for folder in run_folders(results)}

    def __call__(self) -> list[str]:
        changed = []
        for folder in run_folders(self.results):
            now = stamp(folder)
            if self.known.get(folder) != now:
                self.known[folder] = now
                changed.append(folder)
        for folder in changed:
            replace_run(self.db_file, folder)
        return [f"{f.parent.name}/{f.name}" for f in changed]


def replace_run(db_file: Path, folder: Path) -> None:
    """One run's rows in every table of the live store replaced by what its folder holds now."""
    tables = folder_tables(folder)
    if tables is None:  # a manifest being written: read it on the next request
        return
    run = f"{folder.parent.name}/{folder.name}"
    with sqlite3.connect(db_file, timeout=30) as db:
        existing = {name: [c[1] for c in db.execute(f'pragma table_info("{name}")')]
                    for (name,) in db.execute("select name from sqlite_master where type = 'table'")}
        for name, columns in existing.items():
            if "run" in columns:
                db.execute(f'delete from "{name}" where run = ?', (run,))
        for name, frame in tables.items():
            if not len(frame):
                continue
            if name in existing:  # a column this run adds is left out until the next build
                frame = frame.reindex(columns=existing[name])
            _write(db, name, frame, append=True)


def refreshing(asgi, refresher: Refresher):
    """The ASGI app with the store refreshed before each page (Datasette's static files aside)."""
    async def refreshed(scope, receive, send):
        if scope.get("type") == "http" and not scope.get("path", "").startswith("/-/static"):
            try:
                refresher()
            except (OSError, sqlite3.Error) as err:  # a run folder written meanwhile: read it on the next page
                print(f"explore: the store was not refreshed ({type(err).__name__}: {err})", file=sys.stderr)
        await asgi(scope, receive, send)
    return refreshed
