"""Figure of notebook 05: ROC per NLI direction and configuration, and time against concurrency."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import PAGE, interval_text, legend_below, plt, save_figure
from ..scoring.score_eval import roc_points
from .items import DIRECTION_NAMES, DIRECTIONS
from .tables import SCORERS


def nli_figure(hypotheses: pd.DataFrame, auc: pd.DataFrame, timing: pd.DataFrame, title: str, path: Path,
               meta: dict | None = None):
    """One ROC panel per NLI direction (a line per configuration), and time against concurrency."""
    fig, grid = plt.subplots(2, 2, figsize=(PAGE, 7.6))
    axes = grid.ravel()
    configs = list(auc[["model", "prompt", "concurrency"]].drop_duplicates().itertuples(index=False))
    colours = dict(zip(configs, sns.color_palette(n_colors=len(configs))))
    styles = {name: style for name, style in zip(SCORERS.values(), ("-", "--"))}
    for ax, d in zip(axes, DIRECTIONS):
        n = 0
        for c in configs:
            for column, scorer in SCORERS.items():
                part = hypotheses[(hypotheses.direction == d) & (hypotheses.model == c.model)
                                  & (hypotheses.prompt == c.prompt) & (hypotheses.concurrency == c.concurrency)
                                  & hypotheses.entailed.notna()]
                rows = auc[(auc.direction == DIRECTION_NAMES[d]) & (auc.model == c.model) & (auc.prompt == c.prompt)
                           & (auc.concurrency == c.concurrency) & (auc.scorer == scorer)]
                if column not in part or rows.empty:
                    continue
                part, row = part[part[column].notna()], rows.iloc[0]
                n = max(n, int(row.n))
                if part.entailed.nunique() < 2:
                    continue
                fpr, tpr = roc_points(part.entailed.astype(int), part[column].astype(float))
                ax.plot(fpr, tpr, styles[scorer], color=colours[c], drawstyle="steps-post",
                        label=f"{c.model.split('/')[-1]}, {c.prompt}, c={c.concurrency}, {scorer}: "
                              f"{row.auc:.2f} {interval_text(row.auc_lo, row.auc_hi, 'too few answers')}")
        ax.plot([0, 1], [0, 1], ":", color="grey")
        ax.set(xlabel="false-positive rate", ylabel="true-positive rate", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title=f"{DIRECTION_NAMES[d]} (n={n})")
        # Below the panel (inside, the legend covered the curves it names), wrapped to its width
        if legend_below(ax, fontsize=6, below=-0.2, title="AUC [bootstrap 95 % CI over answers]",
                        title_fontsize=6.5) is None and n:
            ax.text(0.02, 0.98, "no ROC curve: the scored answers are all of one class", transform=ax.transAxes,
                    ha="left", va="top", fontsize=6, color="0.3")
    ax = axes[-1]
    for (model, prompt), group in timing.groupby(["model", "prompt"], sort=False):
        group = group.sort_values("concurrency")
        name = f"{model.split('/')[-1]}, {prompt}"
        ax.plot(group.concurrency, group.transform_s, "o--", label=f"{name}: transforming")
        ax.plot(group.concurrency, group.nli_s, "s-", label=f"{name}: getting NLI")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(timing.concurrency.unique()), labels=[str(c) for c in sorted(timing.concurrency.unique())])
    ax.set(xlabel="concurrent requests", ylabel="seconds (wall clock)", ylim=(0, None),
           title="Time vs concurrency")
    ax.legend(fontsize=7)
    return save_figure(fig, path, title, meta)
