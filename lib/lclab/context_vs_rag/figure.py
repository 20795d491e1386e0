"""Figure of notebook 02: accuracy, prompt tokens and answer time of long context and RAG."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..figures import PAGE, plt, save_figure, series_interval

METHOD_LABELS = {"long_context": "long context", "rag": "RAG (top-k chunks)"}


READ = {"corrected": "judge accuracy, as read",  # by the labels, PPI++ or the card: the title names which
        "judge": "judge accuracy (raw)", "match": "string-match accuracy\n(judge uninformative)"}  # fits a third


def accuracy_columns(summary: pd.DataFrame, judge: dict | None) -> str:
    """What the accuracy panel draws: the card-corrected judge, the raw judge (a summary made without a card), or
    the string match where the judge is uninformative."""
    if judge is not None and not judge.get("judge_informative", True):
        return "match"
    return "corrected" if "corrected_acc" in summary and summary["corrected_acc"].notna().any() else (
        "judge" if judge is None else "match")


def context_vs_rag_figure(summary: pd.DataFrame, title: str, path: Path, meta: dict | None = None,
                          judge: dict | None = None):
    """Accuracy, prompt tokens and answer time per method against the size of the document set.

    The x axis is the set's size as a long context (its mean prompt tokens at each
    noise level): RAG retrieves from exactly that set, so both lines share it. `judge`: the run's `data` (who
    judged and its card, printed under the figure; where the judge is uninformative, the string match is drawn).
    """
    read = accuracy_columns(summary, judge)
    size = (summary[summary["method"] == "long_context"].set_index("noise_pct")["prompt_tokens"])
    s = summary.assign(set_tokens=summary["noise_pct"].map(size)).sort_values("noise_pct")
    fig, axes = plt.subplots(1, 3, figsize=(PAGE, 2.8), sharex=True)
    for i, (method, group) in enumerate(s.groupby("method", sort=True)):
        shift = (i - 0.5) * 0.01 * max(1.0, float(s["set_tokens"].max()))  # keep equal points apart
        yerr = [group[f"{read}_acc"] - group[f"{read}_lo"], group[f"{read}_hi"] - group[f"{read}_acc"]]
        label = METHOD_LABELS.get(method, method)
        axes[0].errorbar(group["set_tokens"] + shift, group[f"{read}_acc"], yerr=yerr, fmt="o-", capsize=4,
                         label=label)
        axes[1].plot(group["set_tokens"], group["prompt_tokens"], "o-", label=label)
        axes[2].plot(group["set_tokens"], group["answer_s"], "o-", label=label)
    n = int(s[f"{read}_n"].fillna(0).max())
    axes[0].set(ylim=(-0.05, 1.05), ylabel=READ[read],
                title=f"accuracy ({n} QA pairs per point,\n95 % CI: {series_interval(summary, read)})")
    axes[1].set(ylabel="prompt tokens per answer", title="prompt size")
    axes[2].set(ylabel="seconds per answer call", title="answer time")
    axes[0].xaxis.set_major_locator(MaxNLocator(4))  # the three panels' tick labels had run into each other
    # One x label and one legend for the three panels (each panel's own overlapped its neighbour's).
    fig.supxlabel("document set as a long context (prompt tokens)", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1.06), ncol=len(labels))
    return save_figure(fig, path, title, meta, caption=(judge or {}).get("judge_line"))


def frontier_figure(frontier: pd.DataFrame, title: str, path: Path, meta: dict | None = None,
                    judge: dict | None = None):
    """Accuracy against tokens read per question: long context at each noise level (a line, shortest set first),
    RAG at each k on the fullest sets (a line), Self-Route (one point); 95 % cluster t intervals over QA pairs.
    The judged accuracy corrected by its card where the run has it; the string match where the judge is
    uninformative (the table's `read_from`)."""
    corrected = "corrected" in frontier and frontier["corrected"].notna().any()
    if corrected:
        frontier = frontier.assign(accuracy=frontier["corrected"], lo=frontier["corrected_lo"],
                                   hi=frontier["corrected_hi"])
    what = ("accuracy, judge corrected by its card" if corrected else "string-match accuracy"
            if frontier.get("read_from", pd.Series([""])).eq("string_match").any() else "judge accuracy")
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
        if label.startswith("RAG") and part["k"].notna().any():  # the k of each point in the legend, not over them
            label += ", k = " + ", ".join(f"{k:g}" for k in part["k"].dropna()) + " left to right"
        yerr = [(part["accuracy"] - part["lo"]).fillna(0), (part["hi"] - part["accuracy"]).fillna(0)]
        ax.errorbar(part["tokens_read"], part["accuracy"], yerr=yerr, fmt=style, capsize=3, label=label,
                    markersize=9 if style == "*" else 5)
    n = int(frontier["qa_pairs"].max()) if len(frontier) else 0
    interval = "card, Rogan–Gladen delta method" if corrected else "cluster t"
    ax.set(ylim=(-0.05, 1.05), xlabel="prompt tokens read per question", ylabel=what,
           title=f"accuracy vs tokens read ({n} QA pairs, 95 % CI: {interval})")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # outside the data
    return save_figure(fig, path, title, meta, caption=(judge or {}).get("judge_line"))
