"""Figures: accuracy vs depth with CI bars, or a depth x length heatmap."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # notebooks under papermill and CI have no display
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns


def _save(fig, path: Path):
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    return fig


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
    return _save(fig, path)


METHOD_LABELS = {"long_context": "long context", "rag": "RAG (top-k chunks)"}


def context_vs_rag_figure(summary: pd.DataFrame, title: str, path: Path):
    """Accuracy, prompt tokens and answer time per method against the size of the document set.

    The x axis is the set's size as a long context (its mean prompt tokens at each
    noise level): RAG retrieves from exactly that set, so both lines share it.
    """
    size = (summary[summary["method"] == "long_context"].set_index("noise_pct")["prompt_tokens"])
    s = summary.assign(set_tokens=summary["noise_pct"].map(size)).sort_values("noise_pct")
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for i, (method, group) in enumerate(s.groupby("method", sort=True)):
        shift = (i - 0.5) * 0.01 * max(1.0, float(s["set_tokens"].max()))  # keep equal points apart
        yerr = [group["judge_acc"] - group["judge_lo"], group["judge_hi"] - group["judge_acc"]]
        label = METHOD_LABELS.get(method, method)
        axes[0].errorbar(group["set_tokens"] + shift, group["judge_acc"], yerr=yerr, fmt="o-", capsize=4, label=label)
        axes[1].plot(group["set_tokens"], group["prompt_tokens"], "o-", label=label)
        axes[2].plot(group["set_tokens"], group["answer_s"], "o-", label=label)
    n = int(s["judge_n"].max())
    axes[0].set(ylim=(-0.05, 1.05), ylabel="judge accuracy", title=f"accuracy (n = {n} per point, 95 % Wilson CI)")
    axes[1].set(ylabel="prompt tokens per answer", title="prompt size")
    axes[2].set(ylabel="seconds per answer call", title="answer time")
    for ax in axes:
        ax.set_xlabel("document set as a long context (prompt tokens)")
        ax.legend(loc="best")
    fig.suptitle(title)
    return _save(fig, path)


SET_LABELS = {"single": "single-chunk questions (1 reference chunk)", "multi": "multi-chunk questions (3 reference chunks)"}


def retrieval_curves_figure(curves: pd.DataFrame, title: str, path: Path):
    """recall@k and precision@k against k, one line per question set, with bootstrap 95 % bands."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for set_name, group in curves.groupby("set", sort=False):
        label = f"{SET_LABELS.get(set_name, set_name)}, n = {int(group['n'].max())}"
        for ax, metric in zip(axes, ("recall", "precision")):
            ax.plot(group["k"], group[metric], "o-", label=label)
            ax.fill_between(group["k"], group[f"{metric}_lo"], group[f"{metric}_hi"], alpha=0.2)
    for ax, metric in zip(axes, ("recall", "precision")):
        ax.set(xlabel="k (chunks retrieved)", ylabel=f"mean {metric}@k", ylim=(-0.02, 1.02),
               title=f"{metric}@k (bands: bootstrap 95 % CI)")
        ax.set_xticks(sorted(curves["k"].unique()))
    axes[0].legend(loc="lower right", fontsize=8)
    fig.suptitle(title)
    return _save(fig, path)
