"""Figure of notebook 09: each task's score by length (95 % CIs over haystacks), and score by depth and
length over the tasks that place a needle, with n in every cell."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import PAGE, plt, save_figure


def synthetic_figure(summary: pd.DataFrame, by_length: pd.DataFrame, title: str, path: Path, meta: dict | None = None):
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE, 2.9), gridspec_kw={"width_ratios": [3, 2]})
    lengths = sorted(by_length["context_tokens"].unique()) if len(by_length) else []
    tasks = list(dict.fromkeys(by_length["task"])) if len(by_length) else []
    # One colour and marker per task (RULER's thirteen outnumber a ten-colour palette), each task's points
    # nudged sideways so that tasks at the same score (every needle task at 1.0) stay visible.
    colours = sns.color_palette("colorblind" if len(tasks) <= 10 else "husl", max(len(tasks), 1))
    markers = "osD^vP*Xh<>p8"
    for j, task in enumerate(tasks):
        part = by_length[by_length["task"] == task].sort_values("context_tokens")
        nudge = 2 ** ((j - (len(tasks) - 1) / 2) * 0.02)
        left.errorbar(part["context_tokens"] * nudge, part["score"], capsize=2, fmt="-", marker=markers[j % 13],
                      markersize=3, color=colours[j], label=task, linewidth=1,
                      yerr=[(part["score"] - part["lo"]).clip(lower=0), (part["hi"] - part["score"]).clip(lower=0)])
    if len(lengths) > 1:
        left.set_xscale("log", base=2)
    left.set_xticks(lengths, labels=[f"{x:,}" for x in lengths])
    per_point = int(by_length["haystacks"].max()) if "haystacks" in by_length and len(by_length) else 0
    shown = ("mean score (95 % CI over haystacks)" if per_point > 1 else
             f"mean score (n = {per_point} haystack per point: no interval)")
    left.set(xlabel="context length (tokens of the model)", ylabel=shown, ylim=(-0.05, 1.05),
             title="score by length, per task")
    left.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
    placed = summary.dropna(subset=["depth"]) if len(summary) else summary
    if len(placed):
        cells = placed.groupby(["depth", "context_tokens"]).apply(
            lambda g: pd.Series({"score": (g["score"] * g["n"]).sum() / g["n"].sum(), "n": g["n"].sum()}),
            include_groups=False).reset_index()
        grid = cells.pivot(index="depth", columns="context_tokens", values="score")
        counts = cells.pivot(index="depth", columns="context_tokens", values="n")
        labels = grid.map(lambda v: f"{v:.2f}") + counts.map(lambda n: f"\nn={int(n)}")
        sns.heatmap(grid, ax=right, vmin=0, vmax=1, cmap="viridis", annot=labels, fmt="", annot_kws={"fontsize": 6},
                    cbar_kws={"label": "mean score"})
        right.set(xlabel="context length (tokens)", ylabel="needle depth (%)", title="needle tasks: depth x length")
    else:
        right.axis("off")
    return save_figure(fig, path, title, meta)
