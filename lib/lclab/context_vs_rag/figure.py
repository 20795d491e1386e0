"""Figure of notebook 02: accuracy, prompt tokens and answer time of long context and RAG."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..figures import PAGE, plt, save_figure

METHOD_LABELS = {"long_context": "long context", "rag": "RAG (top-k chunks)"}


def context_vs_rag_figure(summary: pd.DataFrame, title: str, path: Path, meta: dict | None = None):
    """Accuracy, prompt tokens and answer time per method against the size of the document set.

    The x axis is the set's size as a long context (its mean prompt tokens at each
    noise level): RAG retrieves from exactly that set, so both lines share it.
    """
    size = (summary[summary["method"] == "long_context"].set_index("noise_pct")["prompt_tokens"])
    s = summary.assign(set_tokens=summary["noise_pct"].map(size)).sort_values("noise_pct")
    fig, axes = plt.subplots(1, 3, figsize=(PAGE, 2.8), sharex=True)
    for i, (method, group) in enumerate(s.groupby("method", sort=True)):
        shift = (i - 0.5) * 0.01 * max(1.0, float(s["set_tokens"].max()))  # keep equal points apart
        yerr = [group["judge_acc"] - group["judge_lo"], group["judge_hi"] - group["judge_acc"]]
        label = METHOD_LABELS.get(method, method)
        axes[0].errorbar(group["set_tokens"] + shift, group["judge_acc"], yerr=yerr, fmt="o-", capsize=4, label=label)
        axes[1].plot(group["set_tokens"], group["prompt_tokens"], "o-", label=label)
        axes[2].plot(group["set_tokens"], group["answer_s"], "o-", label=label)
    n = int(s["judge_n"].max())
    axes[0].set(ylim=(-0.05, 1.05), ylabel="judge accuracy", title=f"accuracy ({n} QA pairs per point, 95 % Wilson CI)")
    axes[1].set(ylabel="prompt tokens per answer", title="prompt size")
    axes[2].set(ylabel="seconds per answer call", title="answer time")
    axes[0].xaxis.set_major_locator(MaxNLocator(4))  # the three panels' tick labels had run into each other
    # One x label and one legend for the three panels (each panel's own overlapped its neighbour's).
    fig.supxlabel("document set as a long context (prompt tokens)", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1.06), ncol=len(labels))
    return save_figure(fig, path, title, meta)


def frontier_figure(frontier: pd.DataFrame, title: str, path: Path, meta: dict | None = None):
    """Accuracy against tokens read per question: long context at each noise level (a line, shortest set first),
    RAG at each k on the fullest sets (a line), Self-Route (one point); 95 % cluster t intervals over QA pairs."""
    fig, ax = plt.subplots(figsize=(PAGE * 0.6, 3.0))
    top = frontier["noise_pct"].max() if len(frontier) else None
    groups = {"long context (each noise level)": frontier[frontier["method"] == "long_context"],
              "RAG at k (fullest sets)": frontier[frontier["method"].str.startswith("rag")
                                                  & (frontier["noise_pct"] == top)],
              "Self-Route": frontier[frontier["method"] == "self_route"]}
    for (label, part), style in zip(groups.items(), ("o-", "s-", "*")):
        part = part.dropna(subset=["accuracy"]).sort_values("tokens_read")
        if part.empty:
            continue
        yerr = [(part["accuracy"] - part["lo"]).fillna(0), (part["hi"] - part["accuracy"]).fillna(0)]
        ax.errorbar(part["tokens_read"], part["accuracy"], yerr=yerr, fmt=style, capsize=3, label=label,
                    markersize=9 if style == "*" else 5)
        for r in part.itertuples():
            if r.method.startswith("rag") and pd.notna(r.k):
                ax.annotate(f"k={r.k:g}", (r.tokens_read, r.accuracy), textcoords="offset points", xytext=(4, -9),
                            fontsize=6)
    n = int(frontier["qa_pairs"].max()) if len(frontier) else 0
    ax.set(ylim=(-0.05, 1.05), xlabel="prompt tokens read per question", ylabel="judge accuracy",
           title=f"accuracy vs tokens read ({n} QA pairs, 95 % CI)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, loc="lower right")
    return save_figure(fig, path, title, meta)
