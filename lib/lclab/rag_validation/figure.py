"""Figure of notebook 06: recall@k and precision@k curves with bootstrap bands."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..figures import PAGE, plt, save_figure

SET_LABELS = {"single": "single-chunk questions (1 reference chunk)", "multi": "multi-chunk questions (3 reference chunks)"}


def retrieval_curves_figure(curves: pd.DataFrame, title: str, path: Path, meta: dict | None = None):
    """recall@k and precision@k against k, one line per question set, with bootstrap 95 % bands."""
    fig, axes = plt.subplots(1, 2, figsize=(PAGE, 2.8))
    if "set" not in curves:  # no question reached retrieval: save_figure says there is nothing to draw
        return save_figure(fig, path, title, meta)
    for set_name, group in curves.groupby("set", sort=False):
        label = f"{SET_LABELS.get(set_name, set_name)}, n = {int(group['n'].max())}"
        for ax, metric in zip(axes, ("recall", "precision")):
            ax.plot(group["k"], group[metric], "o-", label=label)
            ax.fill_between(group["k"], group[f"{metric}_lo"], group[f"{metric}_hi"], alpha=0.2)
    for ax, metric in zip(axes, ("recall", "precision")):
        ax.set(xlabel="k (chunks retrieved)", ylabel=f"mean {metric}@k", ylim=(-0.02, 1.02),
               title=f"{metric}@k (bands: bootstrap 95 % CI)")
        ax.set_xticks(sorted(curves["k"].unique()))
    # One legend for both panels, below them: inside, it covered the single-chunk band it names.
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(labels), fontsize=7)
    return save_figure(fig, path, title, meta)
