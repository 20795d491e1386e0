"""Long context vs RAG at equal cost: accuracy against the tokens each arm reads per question, and Self-Route.

Every point of the frontier is one arm over the same QA pairs: long context at each noise level (its set is as
long as its prompt), RAG at each k on the fullest sets, and Self-Route (Li et al. 2024: RAG first; when the
model says the retrieved chunks do not answer, the question goes to the long context). Tokens read are the
prompt tokens of every answering call an item made (Self-Route: the RAG prompt, plus the long context's when it
routed); accuracy is the judge's where its card says it can tell right from wrong (with the card-corrected
rate beside it), else the string match's, with a cluster t interval over QA pairs.
"""

from __future__ import annotations

import math

import pandas as pd

from ..qa.judged import read_value
from ..stats.abstention import abstention_table
from ..stats.clusters import cluster_mean_ci, cluster_paired_effect

SEED_METHODS = ("long_context", "rag")

COLUMNS = ["method", "noise_pct", "k", "qa_pairs", "tokens_read", "accuracy", "lo", "hi", "corrected",
           "corrected_lo", "corrected_hi", "read_from"]


def frontier_table(items: pd.DataFrame, value: str = "judge_correct", reading=None) -> pd.DataFrame:
    """One row per arm and noise level (answerable sets only): mean tokens read, accuracy read from `value` and
    its interval, and with the judge's `reading` the judged accuracy corrected by its card."""
    if value not in items or items.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for (method, level), part in items.groupby(["method", "noise_pct"], sort=True):
        scored = part.dropna(subset=[value])
        ci = cluster_mean_ci(scored[value].astype(float), scored["qa_id"])
        fixed = reading.rate(scored[value], scored["qa_id"], None, scored.get(f"{value}_p")) \
            if reading is not None and value == "judge_correct" else {}
        rows.append({"method": method, "noise_pct": level, "k": part["k"].iloc[0] if "k" in part else None,
                     "qa_pairs": ci["n_clusters"], "tokens_read": part["prompt_tokens"].mean(),
                     "accuracy": ci["mean"], "lo": ci["lo"], "hi": ci["hi"], "corrected": fixed.get("estimate"),
                     "corrected_lo": fixed.get("lo"), "corrected_hi": fixed.get("hi"), "read_from": value})
    return pd.DataFrame(rows, columns=COLUMNS).sort_values("tokens_read", ignore_index=True)


def self_route_table(items: pd.DataFrame, value: str = "judge_correct", reading=None) -> tuple[pd.DataFrame, str]:
    """Self-Route against long context and RAG on the same sets (the highest noise level): accuracy, tokens read,
    the share routed to the long context, the paired difference to long context (cluster t interval over QA
    pairs) and the tokens saved per question against long context (its t interval over pairs)."""
    columns = ["noise_pct", "qa_pairs", "self_route", "long_context", "rag", "routed", "difference", "lo", "hi",
               "corrected", "corrected_lo", "corrected_hi", "tokens_self_route", "tokens_long_context",
               "token_saving", "saving_lo", "saving_hi", "read_from"]
    route = items[items["method"] == "self_route"] if "method" in items else items.iloc[:0]
    if route.empty or value not in items:
        return pd.DataFrame(columns=columns), "Self-Route: nothing to compare (no scored item)"
    level = route["noise_pct"].iloc[0]
    at = items[items["noise_pct"] == level].assign(**{value: lambda d: d[value].astype(float)})
    wide = at.pivot_table(index="qa_id", columns="method", values=value, aggfunc="mean")
    tokens = at.pivot_table(index="qa_id", columns="method", values="prompt_tokens", aggfunc="mean")
    both = wide[["self_route", "long_context"]].dropna()
    effect = cluster_paired_effect(both["self_route"], both["long_context"], both.index)
    fixed = reading.difference(effect["effect"], effect["effect_lo"], effect["effect_hi"], effect["n_clusters"]) \
        if reading is not None and value == "judge_correct" else {}
    spent = tokens[["self_route", "long_context"]].dropna()
    saving = cluster_mean_ci(1 - spent["self_route"] / spent["long_context"], spent.index)
    row = {"noise_pct": level, "qa_pairs": effect["n_clusters"], "self_route": both["self_route"].mean(),
           "long_context": both["long_context"].mean(), "rag": wide["rag"].mean() if "rag" in wide else math.nan,
           "routed": route["routed"].astype(float).mean() if "routed" in route else math.nan,
           "difference": effect["effect"], "lo": effect["effect_lo"], "hi": effect["effect_hi"],
           "corrected": fixed.get("corrected"), "corrected_lo": fixed.get("corrected_lo"),
           "corrected_hi": fixed.get("corrected_hi"), "read_from": value, "tokens_self_route": spent["self_route"].mean(), "tokens_long_context": spent["long_context"].mean(),
           "token_saving": saving["mean"], "saving_lo": saving["lo"], "saving_hi": saving["hi"]}
    line = (f"Self-Route at {level} % noise ({value}): accuracy {row['self_route']:.2f} vs long context "
            f"{row['long_context']:.2f}, difference {row['difference']:+.2f} [{row['lo']:+.2f}, {row['hi']:+.2f}] "
            f"over {row['qa_pairs']} QA pairs; routed {row['routed']:.0%}; tokens read "
            f"{row['tokens_self_route']:.0f} vs {row['tokens_long_context']:.0f} "
            f"(saving {row['token_saving']:.0%} [{row['saving_lo']:.0%}, {row['saving_hi']:.0%}])")
    if fixed and fixed["corrected"] == fixed["corrected"]:
        line += (f"; the difference corrected by the judge's card {fixed['corrected']:+.2f} "
                 f"[{fixed['corrected_lo']:+.2f}, {fixed['corrected_hi']:+.2f}]")
    return pd.DataFrame([row], columns=columns), line


def arm_tables(every: pd.DataFrame, frontier: bool, self_route: bool, unanswerable: bool, reading=None
               ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """The tables of the arms a run asked for, and their notes: the frontier over the answerable sets, Self-Route
    against long context, and abstention on unanswerable sets beside the answer rate (the seed's two methods at
    every noise level above 0); each read from the judge where its card says it can tell (`reading`), else from
    the string match."""
    value = read_value(reading)
    answerable = every["answerable"].astype(bool) if "answerable" in every else pd.Series(True, every.index)
    tables, notes = {}, []
    if frontier or self_route:
        tables["frontier"] = frontier_table(every[answerable], value, reading)
    if self_route:
        tables["self_route"], line = self_route_table(every[answerable], value, reading)
        notes.append(line)
    if unanswerable:
        asked = every[(every["noise_pct"] > 0) & every["method"].isin(SEED_METHODS)] if len(every) else every
        for column in ("abstained", value):  # every call failed: the table says there is nothing to read
            if column not in asked:
                asked = asked.assign(**{column: float("nan")})
        tables["abstention"] = abstention_table(asked, ["noise_pct", "method"], value, "abstained", "qa_id")
        notes.append("unanswerable sets: the answer passage cut out of the context and the index; abstention "
                     "(the refusal rule) beside the answer rate on answerable sets in `abstention`")
    return tables, notes
