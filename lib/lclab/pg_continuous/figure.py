"""Figure of notebook 04: coverage of the golden response by combinations of contexts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..figures import PAGE, plt, save_figure

FACT_SERIES = {"io_binary": ("IO facts, binary OR", "o-"), "io_soft": ("IO facts, soft OR", "o--"),
               "cot_binary": ("COT facts, binary OR", "s-"), "cot_soft": ("COT facts, soft OR", "s--")}


def coverage_figure(combinations: pd.DataFrame, title: str, path: Path, meta: dict | None = None):
    """Left: combination score against the number of golden contexts in it. Right: IO against COT facts."""
    fig, (by_golden, io_cot) = plt.subplots(1, 2, figsize=(PAGE, 3.0))
    series = [c for c in FACT_SERIES if c in combinations]
    for i, column in enumerate(series):
        label, style = FACT_SERIES[column]
        stats = combinations.groupby("n_golden")[column].agg(["mean", "min", "max"]).reset_index()
        shift = (i - (len(series) - 1) / 2) * 0.06  # equal values would hide each other
        by_golden.errorbar(stats["n_golden"] + shift, stats["mean"],
                           yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
                           fmt=style, capsize=3, label=label)
    by_golden.set(xlabel="golden contexts in the combination", ylabel="share of golden-response facts covered",
                  ylim=(-0.05, 1.05), title="Coverage vs golden contexts (mean; bars: min-max)")
    by_golden.set_xticks(sorted(combinations["n_golden"].unique()))
    by_golden.legend(loc="lower right", fontsize=8)
    for mode, marker in (("binary", "o"), ("soft", "^")):
        if f"io_{mode}" in combinations and f"cot_{mode}" in combinations:
            io_cot.scatter(combinations[f"io_{mode}"], combinations[f"cot_{mode}"], marker=marker, alpha=0.6,
                           label=f"{mode} OR ({len(combinations)} combinations)")
    io_cot.plot([0, 1], [0, 1], ":", color="grey")
    io_cot.set(xlabel="score with IO facts", ylabel="score with COT facts", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title="IO vs chain-of-thought fact extraction")
    io_cot.legend(loc="upper left", fontsize=8)
    return save_figure(fig, path, title, meta)
