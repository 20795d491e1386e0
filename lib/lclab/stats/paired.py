"""Paired effects between the conditions of one run (depths, methods, models), matched by item.

    paired(items, item="qa_id", condition="depth", value="judge_correct", a=50, b=0)

Items measured under both conditions are compared one to one (a − b), with a
t interval and t test over items (`lclab.stats.paired_effect`): pairing removes
the variation between items, which at n = 8 is most of the variation there is.
"""

from __future__ import annotations

import math

import pandas as pd

from . import paired_effect, power_line

TESTS = {True: "paired t (yes/no)", False: "paired t"}  # lclab.stats.paired_effect


def wide(items: pd.DataFrame, item: str, condition: str, value: str) -> pd.DataFrame:
    """One row per item, one column per condition (NaN where an item has no value there)."""
    if value not in items or items.empty:
        return pd.DataFrame()
    frame = items[[item, condition, value]].copy()
    frame[value] = frame[value].map(lambda v: math.nan if v is None or pd.isna(v) else float(v))
    return frame.drop_duplicates([item, condition], keep="last").set_index([item, condition])[value].unstack()


def paired(items: pd.DataFrame, item: str, condition: str, value: str, a, b, binary: bool = True) -> dict:
    """The paired effect a − b of `value` between two conditions."""
    table = wide(items, item, condition, value)
    if a not in table or b not in table:
        return paired_effect([], [], binary)
    return paired_effect(table[a].tolist(), table[b].tolist(), binary)


def effect_row(label: str, result: dict, binary: bool) -> dict:
    return {"comparison": label, **{k: result[k] for k in ("n_pairs", "effect", "effect_lo", "effect_hi",
                                                           "p_value", "left_out")}, "test": TESTS[binary]}


def power_note(differences_sd: float, n_pairs: int, what: str = "QA pairs") -> str:
    return power_line(differences_sd, n_pairs, what)
