"""Long context vs RAG at equal cost: accuracy against the tokens each arm reads per question, and Self-Route.

Every point of the frontier is one arm over the same QA pairs: long context at each noise level (its set is as
long as its prompt), RAG at each k on the fullest sets, and Self-Route (Li et al. 2024: RAG first; when the
model says the retrieved chunks do not answer, the question goes to the long context). Tokens read are the
prompt tokens of every answering call an item made (Self-Route: the RAG prompt, plus the long context's when it
routed); accuracy is the judge's, with a cluster t interval over QA pairs.
"""

from __future__ import annotations

import math

import pandas as pd

from ..stats.abstention import abstention_table
from ..stats.clusters import cluster_mean_ci, cluster_paired_effect

SEED_METHODS = ("long_context", "rag")

COLUMNS = ["method", "noise_pct", "k", "qa_pairs", "tokens_read", "accuracy", "lo", "hi"]


def frontier_table(items: pd.DataFrame) -> pd.DataFrame:
    """One row per arm and noise level (answerable sets only): mean tokens read, accuracy and its interval."""
    if "judge_correct" not in items or items.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for (method, level), part in items.groupby(["method", "noise_pct"], sort=True):
        judged = part.dropna(subset=["judge_correct"])
        ci = cluster_mean_ci(judged["judge_correct"].astype(float), judged["qa_id"])
        rows.append({"method": method, "noise_pct": level, "k": part["k"].iloc[0] if "k" in part else None,
                     "qa_pairs": ci["n_clusters"], "tokens_read": part["prompt_tokens"].mean(),
                     "accuracy": ci["mean"], "lo": ci["lo"], "hi": ci["hi"]})
    return pd.DataFrame(rows, columns=COLUMNS).sort_values("tokens_read", ignore_index=True)


def self_route_table(items: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Self-Route against long context and RAG on the same sets (the highest noise level): accuracy, tokens read,
    the share routed to the long context, the paired difference to long context (cluster t interval over QA
    pairs) and the tokens saved per question against long context (its t interval over pairs)."""
    columns = ["noise_pct", "qa_pairs", "self_route", "long_context", "rag", "routed", "difference", "lo", "hi",
               "tokens_self_route", "tokens_long_context", "token_saving", "saving_lo", "saving_hi"]
    route = items[items["method"] == "self_route"] if "method" in items else items.iloc[:0]
    if route.empty or "judge_correct" not in items:
        return pd.DataFrame(columns=columns), "Self-Route: nothing to compare (no scored item)"
    level = route["noise_pct"].iloc[0]
    at = items[items["noise_pct"] == level]
    wide = at.pivot_table(index="qa_id", columns="method", values="judge_correct", aggfunc="mean")
    tokens = at.pivot_table(index="qa_id", columns="method", values="prompt_tokens", aggfunc="mean")
    both = wide[["self_route", "long_context"]].dropna()
    effect = cluster_paired_effect(both["self_route"], both["long_context"], both.index)
    spent = tokens[["self_route", "long_context"]].dropna()
    saving = cluster_mean_ci(1 - spent["self_route"] / spent["long_context"], spent.index)
    row = {"noise_pct": level, "qa_pairs": effect["n_clusters"], "self_route": both["self_route"].mean(),
           "long_context": both["long_context"].mean(), "rag": wide["rag"].mean() if "rag" in wide else math.nan,
           "routed": route["routed"].astype(float).mean() if "routed" in route else math.nan,
           "difference": effect["effect"], "lo": effect["effect_lo"], "hi": effect["effect_hi"],
           "tokens_self_route": spent["self_route"].mean(), "tokens_long_context": spent["long_context"].mean(),
           "token_saving": saving["mean"], "saving_lo": saving["lo"], "saving_hi": saving["hi"]}
    line = (f"Self-Route at {level} % noise: accuracy {row['self_route']:.2f} vs long context "
            f"{row['long_context']:.2f}, difference {row['difference']:+.2f} [{row['lo']:+.2f}, {row['hi']:+.2f}] "
            f"over {row['qa_pairs']} QA pairs; routed {row['routed']:.0%}; tokens read "
            f"{row['tokens_self_route']:.0f} vs {row['tokens_long_context']:.0f} "
            f"(saving {row['token_saving']:.0%} [{row['saving_lo']:.0%}, {row['saving_hi']:.0%}])")
    return pd.DataFrame([row], columns=columns), line


def arm_tables(every: pd.DataFrame, frontier: bool, self_route: bool, unanswerable: bool
               ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """The tables of the arms a run asked for, and their notes: the frontier over the answerable sets, Self-Route
    against long context, and abstention on unanswerable sets beside the answer rate (the seed's two methods at
    every noise level above 0)."""
    answerable = every["answerable"].astype(bool) if "answerable" in every else pd.Series(True, every.index)
    tables, notes = {}, []
    if frontier or self_route:
        tables["frontier"] = frontier_table(every[answerable])
    if self_route:
        tables["self_route"], line = self_route_table(every[answerable])
        notes.append(line)
    if unanswerable:
        asked = every[(every["noise_pct"] > 0) & every["method"].isin(SEED_METHODS)] if len(every) else every
        for column in ("abstained", "judge_correct"):  # every call failed: the table says there is nothing to read
            if column not in asked:
                asked = asked.assign(**{column: float("nan")})
        tables["abstention"] = abstention_table(asked, ["noise_pct", "method"], "judge_correct", "abstained", "qa_id")
        notes.append("unanswerable sets: the answer passage cut out of the context and the index; abstention "
                     "(the refusal rule) beside the answer rate on answerable sets in `abstention`")
    return tables, notes
