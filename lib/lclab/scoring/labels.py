"""The maintainer's label files, data/judge_labels/<name>.csv: one label per judged text, filed under a hash of
the texts the judge read (white space aside)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import pandas as pd

from ..paths import DATA
from ..text.hand_tables import read_hand_table

# The maintainer's label files; LCLAB_LABEL_DIR points a session (a test, a trial labelling) elsewhere.
LABELS = Path(os.environ.get("LCLAB_LABEL_DIR") or DATA / "judge_labels")


def label_key(*texts: str) -> str:
    """The key a label is filed under: a hash of the texts it judged (white space aside)."""
    joined = "\x1f".join(re.sub(r"\s+", " ", str(t)).strip() for t in texts)
    return hashlib.sha1(joined.encode("utf-8")).hexdigest()[:12]


def read_label_file(path, what: str = "judge label file") -> pd.Series:
    """A label file (key, label, ...) as {key: 0/1}; a label other than 0 or 1, or a key labelled twice, is an
    error naming its rows."""
    table = read_hand_table(path, ("key", "label"), what)
    bad = [f"row {i + 2}" for i, v in enumerate(table["label"]) if v.strip() not in ("0", "1")]
    if bad:
        raise ValueError(f"{path}: label must be 0 or 1 ({', '.join(bad[:10])})")
    if table["key"].duplicated().any():
        raise ValueError(f"{path}: a key is labelled twice: {sorted(set(table.loc[table['key'].duplicated(), 'key']))}")
    return table.set_index("key")["label"].astype(int)


def load_labels(name: str) -> pd.Series:
    """data/judge_labels/<name>.csv as {key: 0/1} (`read_label_file`); no labels where a label folder of one's own
    (LCLAB_LABEL_DIR) has no file for `name` yet."""
    path = LABELS / f"{name}.csv"
    if not path.exists() and LABELS != DATA / "judge_labels":
        return pd.Series(dtype=int, name="label")
    return read_label_file(path)


def labels_for(keys: pd.Series, name: str) -> pd.Series:
    """The label of each item (NaN where none was written), joined on the key after labelling."""
    return keys.map(load_labels(name)).astype(float)
