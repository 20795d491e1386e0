"""The depth effect a paper would quote, paired by QA pair: each depth minus the first, and the edges minus
the middle, with paired t intervals and tests and a power line."""

from __future__ import annotations

import pandas as pd

from ..figures import p_text
from ..stats import paired_effect
from ..stats.clusters import depth_length_gee
from ..stats.paired import effect_row, paired, power_note, wide

VALUE = "judge_correct"


def depth_effects(items: pd.DataFrame) -> pd.DataFrame:
    """Per context length: every depth minus the shallowest, and the mean of the two edge depths minus the mean
    of the middle ones, each over the QA pairs judged at both (paired t, `lclab.stats.paired_effect`)."""
    rows = []
    if VALUE not in items:
        return pd.DataFrame()
    for tokens, part in items.groupby("context_tokens"):
        depths = sorted(part["depth"].unique())
        for d in depths[1:]:
            result = paired(part, "qa_id", "depth", VALUE, d, depths[0], binary=True)
            rows.append({"context_tokens": tokens, **effect_row(f"{d} % − {depths[0]} %", result, True)})
        if len(depths) >= 3:
            rows.append({"context_tokens": tokens, **effect_row("edges − middle", edges_minus_middle(part), False)})
    return pd.DataFrame(rows)


def edges_minus_middle(part: pd.DataFrame) -> dict:
    """Per QA pair: mean accuracy at the first and last depth minus the mean over the depths between."""
    table = wide(part, "qa_id", "depth", VALUE)
    depths = sorted(table.columns)
    edges = table[[depths[0], depths[-1]]].mean(axis=1, skipna=False)
    middle = table[depths[1:-1]].mean(axis=1, skipna=False)
    return paired_effect(edges.tolist(), middle.tolist(), binary=False)


def depth_power_line(items: pd.DataFrame) -> str:
    """How many QA pairs a 10-point edges-minus-middle effect needs, from this run's variance."""
    if VALUE not in items:
        return power_note(float("nan"), 0)
    longest = items[items["context_tokens"] == items["context_tokens"].max()]
    result = edges_minus_middle(longest) if longest["depth"].nunique() >= 3 else paired(
        longest, "qa_id", "depth", VALUE, longest["depth"].max(), longest["depth"].min())
    return power_note(result["sd_diff"], result["n_pairs"])


def depth_length_model(items: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The depth x length grid in one model: a logistic GEE with the QA pair as cluster (lclab.stats.clusters),
    as a table of odds ratios and the line a reader quotes."""
    table = depth_length_gee(items)
    if not len(table):
        return table, ("depth x length model: not fitted (it needs at least 3 QA pairs, outcomes that vary, and "
                       "depths or lengths that vary)")
    names = {"depth_100": "depth, top to bottom", "log2_length": "length, per doubling"}
    parts = [f"{names[r.term]}: odds ratio {r.odds_ratio:.2f} [{r.lo:.2f}, {r.hi:.2f}], {p_text(r.p_value)}"
             for r in table.itertuples()]
    return table, (f"logistic GEE over {table['n_items'].iloc[0]} items, {table['n_clusters'].iloc[0]} QA pairs as "
                   "clusters (cluster-robust 95 % CIs): " + "; ".join(parts))
