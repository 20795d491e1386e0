"""Figure of notebook 01: accuracy vs depth with CI bars, or a depth x length heatmap."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import plt, save_figure


def depth_figure(summary: pd.DataFrame, title: str, path: Path, prefix: str = "judge"):
    """Line plot with Wilson 95 % CI bars per context length; a heatmap when there are several lengths."""
    lengths = sorted(summary["context_tokens"].unique())
    acc, lo, hi = f"{prefix}_acc", f"{prefix}_lo", f"{prefix}_hi"
    if len(lengths) == 1:
        fig, ax = plt.subplots(figsize=(6, 4))
        # The two series are drawn a little apart so that equal values don't hide each other.
        for source, style, shift in ((prefix, "o-", -1.0), ("match", "s--", 1.0)):
            if f"{source}_acc" not in summary:
                continue
            s = summary.sort_values("depth")
            yerr = [s[f"{source}_acc"] - s[f"{source}_lo"], s[f"{source}_hi"] - s[f"{source}_acc"]]
            label = "LLM judge" if source == prefix else "gold answer in response"
            ax.errorbar(s["depth"] + shift, s[f"{source}_acc"], yerr=yerr, fmt=style, capsize=4, label=label)
        ax.set_xlabel("depth of the answer document in the context (%)")
        ax.set_ylabel("accuracy")
        ax.set_ylim(-0.05, 1.05)
        ax.set_xticks(sorted(summary["depth"].unique()))
        ax.legend(loc="lower left")
        n = int(summary[f"{prefix}_n"].max())
        ax.set_title(f"{title}\n{lengths[0]}-token context, n = {n} per depth, bars: 95 % Wilson CI")
    else:
        grid = summary.pivot(index="context_tokens", columns="depth", values=acc)
        fig, ax = plt.subplots(figsize=(1.2 * grid.shape[1] + 2.5, 0.6 * grid.shape[0] + 2))
        annot = summary.assign(label=lambda d: d.apply(
            lambda r: f"{r[acc]:.2f}\n[{r[lo]:.2f},{r[hi]:.2f}]", axis=1)
        ).pivot(index="context_tokens", columns="depth", values="label")
        sns.heatmap(grid, annot=annot, fmt="", vmin=0, vmax=1, cmap="viridis", ax=ax,
                    cbar_kws={"label": "judge accuracy"})
        ax.set_xlabel("depth of the answer document (%)")
        ax.set_ylabel("context tokens")
        ax.set_title(f"{title}\ncells: accuracy [95 % Wilson CI]")
    return save_figure(fig, path)
