"""What a run owes its reader beside its tables: its headline, and notes on failed items and skipped files."""

from __future__ import annotations

import pandas as pd


def headline(metric: str, value, lo=None, hi=None, judge: str | None = None) -> dict:
    """The one number a run is listed under in the index of runs, with its interval (and who judged it)."""
    clean = lambda v: None if v is None or pd.isna(v) else float(v)  # noqa: E731
    return {"metric": metric, "value": clean(value), "lo": clean(lo), "hi": clean(hi)} | ({"judge": judge} if judge else {})


def failure_notes(items: pd.DataFrame) -> list[str]:
    failed = int(items["error"].notna().sum()) if "error" in items else 0
    if not failed:
        return []
    return [f"{failed} rows failed or could not be scored (result.failures lists them with the reason); "
            "they are left out of every rate, never counted as wrong, and a rerun retries them"]


class SkippedNote(str):
    """The note of skipped corpus files: a run's manifest keeps it, and ./run_all.sh prints it on the terminal."""


def skipped_note(skipped_files: list[tuple[str, str]]) -> list[str]:
    """The line a run owes its reader when corpus files were left out (the first five named, then how many more)."""
    if not skipped_files:
        return []
    named = "; ".join(f"{n} ({r})" for n, r in skipped_files[:5])
    more = f"; and {len(skipped_files) - 5} more" if len(skipped_files) > 5 else ""
    return [SkippedNote(f"{len(skipped_files)} corpus files skipped: {named}{more}")]
