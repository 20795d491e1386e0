"""Figure of notebook 05: ROC per NLI direction and configuration, and time against concurrency."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import plt, save_figure
from ..score_eval import roc_points
from .items import DIRECTION_NAMES, DIRECTIONS


def nli_figure(hypotheses: pd.DataFrame, auc: pd.DataFrame, timing: pd.DataFrame, title: str, path: Path):
    """One ROC panel per NLI direction (a line per configuration), and time against concurrency."""
    fig, axes = plt.subplots(1, len(DIRECTIONS) + 1, figsize=(17, 4.4))
    configs = list(auc[["model", "prompt", "concurrency"]].drop_duplicates().itertuples(index=False))
    colours = dict(zip(configs, sns.color_palette(n_colors=len(configs))))
    for ax, d in zip(axes, DIRECTIONS):
        for c in configs:
            part = hypotheses[(hypotheses.direction == d) & (hypotheses.model == c.model)
                              & (hypotheses.prompt == c.prompt) & (hypotheses.concurrency == c.concurrency)
                              & hypotheses.entailed.notna() & hypotheses.estimate.notna()]
            row = auc[(auc.direction == DIRECTION_NAMES[d]) & (auc.model == c.model) & (auc.prompt == c.prompt)
                      & (auc.concurrency == c.concurrency)].iloc[0]
            if part.entailed.nunique() < 2:
                continue
            fpr, tpr = roc_points(part.entailed.astype(int), part.estimate.astype(float))
            ax.plot(fpr, tpr, color=colours[c], drawstyle="steps-post",
                    label=f"{c.model.split('/')[-1]}, {c.prompt}, c={c.concurrency}: "
                          f"{row.auc:.2f} [{row.auc_lo:.2f}, {row.auc_hi:.2f}]")
        ax.plot([0, 1], [0, 1], ":", color="grey")
        ax.set(xlabel="false-positive rate", ylabel="true-positive rate", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title=f"{DIRECTION_NAMES[d]} (n={int(row.n)})")
        ax.legend(loc="lower right", fontsize=7, title="AUC [bootstrap 95 % CI]", title_fontsize=7)
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
    fig.suptitle(title)
    return save_figure(fig, path)
