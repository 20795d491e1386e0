"""Figure of notebook 01: accuracy by depth (or a depth x length heatmap), accuracy by length with the
effective length when several lengths were run, and the paired depth effects."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import COLUMN, PAGE, p_text, plt, save_figure


def depth_figure(summary: pd.DataFrame, title: str, path: Path, meta: dict | None = None,
                 effects: pd.DataFrame | None = None, prefix: str = "judge", by_length: pd.DataFrame | None = None,
                 effective: dict | None = None):
    """Left: accuracy per depth with Wilson 95 % CIs (a heatmap when there are several lengths).
    Middle, with several lengths and `by_length` (lengths.accuracy_by_length): accuracy per length, the 85 %
    threshold and the effective length with its bootstrap CI (`effective`, lengths.effective_length_ci).
    Right: the paired effects (each depth minus the first, edges minus middle) with bootstrap 95 % CIs."""
    lengths = sorted(summary["context_tokens"].unique())
    more = []  # the panels right of the depth panel
    if len(lengths) > 1 and by_length is not None and len(by_length):
        more.append(lambda ax: _by_length(ax, by_length, effective or {}))
    if effects is not None and len(effects) > 0:
        longest = effects["context_tokens"].max()
        more.append(lambda ax: _effects(ax, effects[effects["context_tokens"] == longest],
                                        f" at {longest:,} tokens" if len(lengths) > 1 else ""))
    width = PAGE * (1 + len(more)) / 2 if more else COLUMN
    fig, axes = plt.subplots(1, 1 + len(more), figsize=(width, 2.8), squeeze=False)
    _by_depth(axes[0][0], summary, prefix, lengths)
    for draw, ax in zip(more, axes[0][1:]):
        draw(ax)
    return save_figure(fig, path, title, meta)


def _by_depth(ax, summary: pd.DataFrame, prefix: str, lengths: list) -> None:
    if len(lengths) == 1:
        _cells(ax, summary, prefix)
        ax.set_title(f"{lengths[0]} tokens, n = {int(summary[f'{prefix}_n'].max())} per depth; 95 % Wilson CI")
    else:
        _heatmap(ax, summary, prefix)


def _by_length(ax, by_length: pd.DataFrame, effective: dict) -> None:
    s = by_length.sort_values("context_tokens")
    ax.errorbar(s["context_tokens"], s["acc"], yerr=[s["acc"] - s["lo"], s["hi"] - s["acc"]], fmt="o-", capsize=4,
                color="black", label="judge accuracy, all depths")
    base = effective.get("base_accuracy")
    if base == base and base is not None:  # not NaN
        ax.axhline(0.85 * base, color="grey", linestyle="--", linewidth=0.8, label="85 % of the shortest length")
    length, lo, hi = (effective.get(k) for k in ("effective_length", "lo", "hi"))
    if length == length and length is not None:
        ax.axvspan(lo, hi, color="tab:blue", alpha=0.12, label="effective length, 95 % bootstrap CI")
        ax.axvline(length, color="tab:blue", linewidth=1.2)
        ax.set_title(f"effective length {length:,.0f} tokens [{lo:,.0f}, {hi:,.0f}]")
    else:
        ax.set_title("accuracy by length (effective length: not defined)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(s["context_tokens"]), labels=[f"{t / 1000:g}k" for t in s["context_tokens"]])
    ax.minorticks_off()
    ax.set(xlabel="context tokens", ylabel="accuracy (Wilson 95 % CI)", ylim=(-0.05, 1.05))
    ax.legend(loc="lower left", fontsize=7)


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


def _effects(ax, effects: pd.DataFrame, where: str = "") -> None:
    y = range(len(effects))
    xerr = [effects["effect"] - effects["effect_lo"], effects["effect_hi"] - effects["effect"]]
    ax.errorbar(effects["effect"], list(y), xerr=xerr, fmt="o", capsize=4, color="black")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(list(y), labels=[f"{c}  ({p_text(p)})" for c, p in zip(effects["comparison"], effects["p_value"])])
    ax.invert_yaxis()
    ax.set(xlabel="paired difference in judge accuracy", xlim=(-1.05, 1.05))
    ax.set_title(f"paired by QA pair{where} (n = {int(effects['n_pairs'].max())}); 95 % bootstrap CI")
