"""The depth effect a paper would quote, paired by QA pair: each depth minus the first, and the edges minus
the middle, with paired t intervals and tests and a power line."""

from __future__ import annotations

import pandas as pd

from ..stats import p_text, paired_effect
from ..stats.clusters import depth_length_gee
from ..stats.effective_length import accuracy_by_length, effective_length_ci, length_note
from ..stats.paired import effect_row, paired, power_note, wide

VALUE = "judge_correct"


def depth_effects(items: pd.DataFrame, value: str = VALUE, reading=None) -> pd.DataFrame:
    """Per context length: every depth minus the shallowest, and the mean of the two edge depths minus the mean
    of the middle ones, each over the QA pairs scored at both (paired t, `lclab.stats.paired_effect`), read from
    `value` (the judge's verdict, or the string match where the judge is uninformative); with a judge's `reading`
    and its verdicts, each difference also corrected by the judge's card (`corrected`, `_lo`, `_hi`)."""
    rows = []
    if value not in items:
        return pd.DataFrame()
    for tokens, part in items.groupby("context_tokens"):
        depths = sorted(part["depth"].unique())
        for d in depths[1:]:
            result = paired(part, "qa_id", "depth", value, d, depths[0], binary=True)
            rows.append({"context_tokens": tokens, **effect_row(f"{d} % − {depths[0]} %", result, True)})
        if len(depths) >= 3:
            rows.append({"context_tokens": tokens,
                         **effect_row("edges − middle", edges_minus_middle(part, value), False)})
    table = pd.DataFrame(rows).assign(read_from=value)
    if reading is not None and value == VALUE and len(table):
        corrected = [reading.difference(r.effect, r.effect_lo, r.effect_hi, r.n_pairs) for r in table.itertuples()]
        table = pd.concat([table, pd.DataFrame(corrected, index=table.index)], axis=1)
    return table


def edges_minus_middle(part: pd.DataFrame, value: str = VALUE) -> dict:
    """Per QA pair: mean accuracy at the first and last depth minus the mean over the depths between."""
    table = wide(part, "qa_id", "depth", value)
    depths = sorted(table.columns)
    edges = table[[depths[0], depths[-1]]].mean(axis=1, skipna=False)
    middle = table[depths[1:-1]].mean(axis=1, skipna=False)
    return paired_effect(edges.tolist(), middle.tolist(), binary=False)


def depth_power_line(items: pd.DataFrame, value: str = VALUE) -> str:
    """How many QA pairs a 10-point edges-minus-middle effect needs, from this run's variance."""
    if value not in items:
        return power_note(float("nan"), 0)
    longest = items[items["context_tokens"] == items["context_tokens"].max()]
    result = edges_minus_middle(longest, value) if longest["depth"].nunique() >= 3 else paired(
        longest, "qa_id", "depth", value, longest["depth"].max(), longest["depth"].min())
    return power_note(result["sd_diff"], result["n_pairs"])


def depth_length_model(items: pd.DataFrame, value: str = VALUE) -> tuple[pd.DataFrame, str]:
    """The depth x length grid in one model: a logistic GEE with the QA pair as cluster (lclab.stats.clusters),
    as a table of odds ratios and the line a reader quotes."""
    table = depth_length_gee(items, value)
    if not len(table):
        return table, ("depth x length model: not fitted (it needs at least 3 QA pairs, outcomes that vary, and "
                       "depths or lengths that vary)")
    names = {"depth_100": "depth, top to bottom", "log2_length": "length, per doubling"}
    parts = [f"{names[r.term]}: odds ratio {r.odds_ratio:.2f} [{r.lo:.2f}, {r.hi:.2f}], {p_text(r.p_value)}"
             for r in table.itertuples()]
    return table, (f"logistic GEE over {table['n_items'].iloc[0]} items, {table['n_clusters'].iloc[0]} QA pairs as "
                   "clusters (cluster-robust 95 % CIs): " + "; ".join(parts))


def depth_tables(base: pd.DataFrame, reading, lengths: list[int], mode: str) -> tuple[dict, list[str]]:
    """A sweep's depth and length tables and their lines, read from the judge where its card says it can tell
    (lclab.qa.judged.read_value), else from the string match: the paired depth effects (corrected by the card too),
    accuracy by length and the effective length, and the depth x length model."""
    from ..qa.judged import read_value

    value = read_value(reading)
    lengths_ci, (grid, grid_line) = effective_length_ci(base, value=value), depth_length_model(base, value)
    tables = {"effects": depth_effects(base, value, reading),
              "by_length": accuracy_by_length(base, value).assign(read_from=value),
              "effective_length": pd.DataFrame([lengths_ci]).assign(distractors=mode, read_from=value),
              "depth_length_model": grid}
    return tables, [depth_power_line(base, value), length_note(lengths_ci, lengths), grid_line]
