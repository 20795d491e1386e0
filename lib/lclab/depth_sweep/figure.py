"""Figure of notebook 01: accuracy by depth (or a depth x length heatmap) and the paired depth effects."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import COLUMN, PAGE, p_text, plt, save_figure


def depth_figure(summary: pd.DataFrame, title: str, path: Path, meta: dict | None = None,
                 effects: pd.DataFrame | None = None, prefix: str = "judge"):
    """Left: accuracy per depth with Wilson 95 % CIs (a heatmap when there are several lengths).
    Right: the paired effects (each depth minus the first, edges minus middle) with bootstrap 95 % CIs."""
    lengths = sorted(summary["context_tokens"].unique())
    with_effects = effects is not None and len(effects) > 0
    fig, axes = plt.subplots(1, 2 if with_effects else 1, figsize=(PAGE if with_effects else COLUMN, 2.8),
                             squeeze=False)
    ax = axes[0][0]
    if len(lengths) == 1:
        _cells(ax, summary, prefix)
        ax.set_title(f"{lengths[0]} tokens, n = {int(summary[f'{prefix}_n'].max())} per depth; 95 % Wilson CI")
    else:
        _heatmap(ax, summary, prefix)
    if with_effects:
        _effects(axes[0][1], effects[effects["context_tokens"] == effects["context_tokens"].max()])
    return save_figure(fig, path, title, meta)


def _cells(ax, summary: pd.DataFrame, prefix: str) -> None:
    # The two series are drawn a little apart so that equal values don't hide each other.
    s = summary.sort_values("depth")
    for source, style, shift in ((prefix, "o-", -1.0), ("match", "s--", 1.0)):
        if f"{source}_acc" not in s:
            continue
        yerr = [s[f"{source}_acc"] - s[f"{source}_lo"], s[f"{source}_hi"] - s[f"{source}_acc"]]
        label = "LLM judge" if source == prefix else "gold answer in response"
        ax.errorbar(s["depth"] + shift, s[f"{source}_acc"], yerr=yerr, fmt=style, capsize=4, label=label)
    ax.set(xlabel="depth of the answer document in the context (%)", ylabel="accuracy", ylim=(-0.05, 1.05))
    ax.set_xticks(sorted(summary["depth"].unique()))
    ax.legend(loc="lower left", fontsize=8)


def _heatmap(ax, summary: pd.DataFrame, prefix: str) -> None:
    acc, lo, hi = f"{prefix}_acc", f"{prefix}_lo", f"{prefix}_hi"
    grid = summary.pivot(index="context_tokens", columns="depth", values=acc)
    annot = summary.assign(label=lambda d: d.apply(lambda r: f"{r[acc]:.2f}\n[{r[lo]:.2f},{r[hi]:.2f}]", axis=1)
                           ).pivot(index="context_tokens", columns="depth", values="label")
    sns.heatmap(grid, annot=annot, fmt="", vmin=0, vmax=1, cmap="viridis", ax=ax, cbar_kws={"label": "judge accuracy"})
    ax.set(xlabel="depth of the answer document (%)", ylabel="context tokens")
    ax.set_title("cells: accuracy [95 % Wilson CI]")


def _effects(ax, effects: pd.DataFrame) -> None:
    y = range(len(effects))
    xerr = [effects["effect"] - effects["effect_lo"], effects["effect_hi"] - effects["effect"]]
    ax.errorbar(effects["effect"], list(y), xerr=xerr, fmt="o", capsize=4, color="black")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(list(y), labels=[f"{c}  ({p_text(p)})" for c, p in zip(effects["comparison"], effects["p_value"])])
    ax.invert_yaxis()
    ax.set(xlabel="paired difference in judge accuracy", xlim=(-1.05, 1.05))
    ax.set_title(f"paired by QA pair (n = {int(effects['n_pairs'].max())}); 95 % bootstrap CI")
