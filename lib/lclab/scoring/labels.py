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


# What a text of an unanswerable item (02's `unanswerable_share`: its answer passage cut out of the context and the
# index) is keyed with besides its texts: there abstaining is right and an answer is wrong, so "not in the text"
# is one label on an answerable item and the opposite on its twin with the same question, reference and reply.
UNANSWERABLE = "[unanswerable: the answer passage was cut out]"


def unanswerable(row) -> bool:
    """Whether an item row says its question cannot be answered from what the model read (`answerable` false;
    a row without the column, or with it empty, is answerable)."""
    value = row.get("answerable") if hasattr(row, "get") else None
    return value is not None and value == value and not bool(value)


def row_key(row, fields) -> str:
    """The key of an item row's text: `label_key` of its `fields`, with UNANSWERABLE after them on an item that
    cannot be answered. Everything that decides a label's correctness is in it, and an answerable item's key is
    the hash of its texts alone, so every label filed before answerability was keyed still reads."""
    return label_key(*(row[f] for f in fields), *([UNANSWERABLE] if unanswerable(row) else []))


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
