"""Figure of notebook 01: accuracy by depth (or a depth x length heatmap), accuracy by length with the
effective length when several lengths were run, and the paired depth effects."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import COLUMN, PAGE, p_text, plt, save_figure, series_interval
from ..stats.effective_length import MIN_PAIRS


LABELS = {"judge": "LLM judge (raw)", "corrected": "LLM judge, corrected",  # its legend names by what
          "match": "gold answer in response"}


def judged_prefix(summary: pd.DataFrame, judge: dict | None) -> str | None:
    """Which columns the figure reads for the judge: the card-corrected rates where the run has them, the raw
    ones for a summary made without a card, none where the judge is uninformative (the string match stands)."""
    if judge is not None and not judge.get("judge_informative", True):
        return None
    if "corrected_acc" in summary and summary["corrected_acc"].notna().any():
        return "corrected"
    return "judge" if judge is None else None


def depth_figure(summary: pd.DataFrame, title: str, path: Path, meta: dict | None = None,
                 effects: pd.DataFrame | None = None, prefix: str = "judge", by_length: pd.DataFrame | None = None,
                 effective: dict | None = None, judge: dict | None = None):
    """Left: accuracy per depth (the judge's, corrected by its card, and the string match) with 95 % CIs (a
    heatmap when there are several lengths). `judge`: the run's `data` ({"judge_line", "judge_informative"}),
    printed under the figure; where the judge is uninformative only the string match is drawn.
    Middle, with several lengths and `by_length` (lengths.accuracy_by_length): accuracy per length, the 85 %
    threshold and the effective length with its bootstrap CI (`effective`, lengths.effective_length_ci).
    Right: the paired effects (each depth minus the first, edges minus middle) with paired t 95 % CIs."""
    lengths = sorted(summary["context_tokens"].unique())
    prefix = judged_prefix(summary, judge) if judge is not None or prefix == "judge" else prefix
    more = []  # the panels right of the depth panel
    if len(lengths) > 1 and by_length is not None and len(by_length):
        more.append(lambda ax: _by_length(ax, by_length, effective or {}))
    if effects is not None and len(effects) > 0:
        longest = effects["context_tokens"].max()
        more.append(lambda ax: _effects(ax, effects[effects["context_tokens"] == longest],
                                        f" at {longest:,} tokens" if len(lengths) > 1 else ""))
    if len(more) == 2:
        # Three panels side by side would be 11 in wide and unreadable when shrunk to a page: the heatmap takes
        # the top row, the two line panels share the bottom one.
        fig = plt.figure(figsize=(PAGE, 2.2 + 0.35 * len(lengths) + 2.6))
        grid = fig.add_gridspec(2, 2, height_ratios=[0.6 + 0.35 * len(lengths), 2.6])
        axes = [fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1])]
    else:
        width = PAGE if more else COLUMN
        fig, grid = plt.subplots(1, 1 + len(more), figsize=(width, 2.8), squeeze=False)
        axes = list(grid[0])
    _by_depth(axes[0], summary, prefix, lengths)
    for draw, ax in zip(more, axes[1:]):
        draw(ax)
    return save_figure(fig, path, title, meta, caption=(judge or {}).get("judge_line"))


def _by_depth(ax, summary: pd.DataFrame, prefix: str | None, lengths: list) -> None:
    if len(lengths) == 1:
        _cells(ax, summary, prefix)
        ns = summary[f"{prefix or 'match'}_n"].fillna(0).astype(int)
        # A depth whose answers all failed has no point: say so, never a per-point n it does not have.
        n_text = f"n = {ns.max()}" if ns.min() == ns.max() else f"n = {ns.min()}-{ns.max()}"
        empty = summary.loc[ns == 0, "depth"].tolist() if "depth" in summary else []
        ax.set_title(f"{lengths[0]:,} tokens, {n_text} QA pairs per point; 95 % intervals as the legend names"
                     + (f"; no scored answer at depth {', '.join(f'{d} %' for d in empty)}" if empty else ""))
    else:
        _heatmap(ax, summary, prefix or "match")


def _by_length(ax, by_length: pd.DataFrame, effective: dict) -> None:
    s = by_length.sort_values("context_tokens")
    what = "string match" if by_length.get("read_from", pd.Series(["judge"])).iloc[0] == "string_match" else "judge"
    ax.errorbar(s["context_tokens"], s["acc"], yerr=[s["acc"] - s["lo"], s["hi"] - s["acc"]], fmt="o-", capsize=4,
                color="black", label=f"{what} accuracy, all depths")
    base = effective.get("base_accuracy")
    if base == base and base is not None:  # not NaN
        ax.axhline(0.85 * base, color="grey", linestyle="--", linewidth=0.8, label="85 % of the shortest length")
    length, lo, hi = (effective.get(k) for k in ("effective_length", "lo", "hi"))
    n_pairs = effective.get("n_pairs", MIN_PAIRS)
    if n_pairs < MIN_PAIRS:  # the number would be an artifact of a handful of pairs (stats.effective_length)
        ax.set_title(f"effective length: not estimated ({n_pairs} QA pairs per length, {MIN_PAIRS} needed)")
    elif length == length and length is not None:
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


def _cells(ax, summary: pd.DataFrame, prefix: str | None) -> None:
    depths = sorted(summary["depth"].unique())
    modes = sorted(summary["distractors"].unique()) if "distractors" in summary else [None]
    if len(depths) == 1 and len(modes) > 1:
        return _by_distractors(ax, summary, prefix, modes, depths[0])
    series = [(source, mode) for mode in modes for source in (prefix, "match") if f"{source}_acc" in summary]
    # Series drawn a little apart so that equal values don't hide each other; with one depth, side by side.
    step = 25 if len(depths) == 1 else 0.8 * min(b - a for a, b in zip(depths, depths[1:]))
    width = step / (len(series) + 1)
    for i, (source, mode) in enumerate(series):
        s = (summary if mode is None else summary[summary["distractors"] == mode]).sort_values("depth")
        shift = (i - (len(series) - 1) / 2) * width
        yerr = [s[f"{source}_acc"] - s[f"{source}_lo"], s[f"{source}_hi"] - s[f"{source}_acc"]]
        label = LABELS[source] + (f", {mode} distractors" if mode is not None else "") + f" ({series_interval(s, source)})"
        ax.errorbar(s["depth"] + shift, s[f"{source}_acc"], yerr=yerr, fmt="o-" if source == prefix else "s--",
                    capsize=3, label=label)
    ax.set(xlabel="depth of the answer document in the context (%)", ylabel="accuracy", ylim=(-0.05, 1.05))
    ax.set_xticks(depths)
    if len(depths) == 1:
        ax.set_xlim(depths[0] - step, depths[0] + step)
    # Below the axes: inside, the legend covered the points it names.
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=6.5)


def _by_distractors(ax, summary: pd.DataFrame, prefix: str | None, modes: list, depth) -> None:
    """One depth, several distractor modes: the modes along x, the judge and the string match side by side."""
    sources = [source for source in (prefix, "match") if f"{source}_acc" in summary]
    for i, source in enumerate(sources):
        s = summary.set_index("distractors").loc[modes]
        yerr = [s[f"{source}_acc"] - s[f"{source}_lo"], s[f"{source}_hi"] - s[f"{source}_acc"]]
        ax.errorbar([j + (i - (len(sources) - 1) / 2) * 0.15 for j in range(len(modes))], s[f"{source}_acc"],
                    yerr=yerr, fmt="o" if source == prefix else "s", capsize=3,
                    label=f"{LABELS[source]} ({series_interval(s, source)})")
    ax.set_xticks(range(len(modes)), labels=[f"{m} distractors" for m in modes])
    ax.set(xlim=(-0.6, len(modes) - 0.4), ylim=(-0.05, 1.05), ylabel="accuracy",
           xlabel=f"answer document at depth {depth} %")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=6.5)


def _heatmap(ax, summary: pd.DataFrame, prefix: str) -> None:
    acc, lo, hi = f"{prefix}_acc", f"{prefix}_lo", f"{prefix}_hi"
    grid = summary.pivot(index="context_tokens", columns="depth", values=acc)
    n = f"{prefix}_n"
    annot = summary.assign(label=lambda d: d.apply(
        lambda r: f"{r[acc]:.2f} [{r[lo]:.2f},{r[hi]:.2f}]\nn = {int(r[n])}", axis=1)
    ).pivot(index="context_tokens", columns="depth", values="label")
    sns.heatmap(grid, annot=annot, fmt="", vmin=0, vmax=1, cmap="viridis", ax=ax, cbar_kws={"label": LABELS[prefix]},
                annot_kws={"fontsize": 6.5})
    ax.set(xlabel="depth of the answer document (%)", ylabel="context tokens")
    ax.set_title(f"cells: accuracy [95 % CI: {series_interval(summary, prefix)}], n = QA pairs in the cell")


def _effects(ax, effects: pd.DataFrame, where: str = "") -> None:
    y = range(len(effects))
    corrected = "corrected" in effects and effects["corrected"].notna().any()
    value = "corrected" if corrected else "effect"
    lo, hi = ("corrected_lo", "corrected_hi") if corrected else ("effect_lo", "effect_hi")
    xerr = [effects[value] - effects[lo], effects[hi] - effects[value]]
    ax.errorbar(effects[value], list(y), xerr=xerr, fmt="o", capsize=4, color="black")
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(list(y), labels=[f"{c}  ({p_text(p)})" for c, p in zip(effects["comparison"], effects["p_value"])])
    ax.invert_yaxis()
    what = ("judge accuracy, corrected by its card" if corrected else "string-match accuracy"
            if effects.get("read_from", pd.Series([""])).iloc[0] == "string_match" else "judge accuracy")
    ax.set(xlabel=f"paired difference in {what}", xlim=(-1.05, 1.05))
    n = int(effects["n_pairs"].max())
    # Said in the title, not over the intervals it qualifies.
    ax.set_title(f"paired by QA pair{where} (n = {n}); 95 % paired t CI"
                 + (f"\nonly {n} QA pairs: only large effects can show" if n < MIN_PAIRS else ""))
