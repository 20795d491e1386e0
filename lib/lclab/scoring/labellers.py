"""The ceiling a judge is read against: how far two labellers agree on the same texts.

A label file `data/judge_labels/<name>.csv` may have a second labeller's file beside it,
`data/judge_labels/second_labeller/<name>.csv` (key, label, note, blind), written from the same sheets
without the first labels. Cohen's κ between the two, on the texts both labelled, is what a judge's κ with
the first labeller can be compared with: a judge cannot be expected to agree with one labeller better
than another careful labeller does.
"""

from __future__ import annotations

import math

import pandas as pd

from ..stats import kappa_with_ci
from .labels import LABELS, load_labels, read_label_file

SECOND = LABELS / "second_labeller"


def second_labels(name: str) -> pd.Series | None:
    """The second labeller's {key: 0/1} for label file `name`, or None where there is no second labeller."""
    path = SECOND / f"{name}.csv"
    if not path.exists():
        return None
    return read_label_file(path, "second labeller's file")


def labeller_agreement(name: str, keys=None, clusters: pd.Series | None = None) -> dict:
    """κ between the two labellers of `name` with its bootstrap 95 % CI, on the texts both labelled (only
    those among `keys` when given; `clusters`: each key's independent unit, a QA pair, which the bootstrap then
    resamples, as the judge's κ beside it does); NaN where there is no second labeller or no text in common."""
    empty = {"labellers_n": 0, "labellers_kappa": math.nan, "labellers_kappa_lo": math.nan,
             "labellers_kappa_hi": math.nan}
    second = second_labels(name)
    if second is None:
        return empty
    first = load_labels(name)
    both = first.index.intersection(second.index)
    if keys is not None:
        both = both.intersection(pd.Index(keys))
    if len(both) == 0:
        return empty
    units = None if clusters is None else clusters[~clusters.index.duplicated()].reindex(both).to_numpy()
    got = kappa_with_ci(first[both].to_numpy(), second[both].to_numpy(), units)
    return {"labellers_n": len(both), "labellers_kappa": got["kappa"], "labellers_kappa_lo": got["kappa_lo"],
            "labellers_kappa_hi": got["kappa_hi"]}
