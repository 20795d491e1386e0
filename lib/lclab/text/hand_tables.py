"""Reading the hand-made CSV files under data/ (labels, question sets)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def read_hand_table(path: Path, columns: tuple[str, ...], what: str) -> pd.DataFrame:
    """A hand-made CSV read as text (no NaN guessing), with its required columns checked."""
    if not path.exists():
        raise FileNotFoundError(f"{what} {path} does not exist")
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in columns if c not in df]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; expected {list(columns)}")
    return df
