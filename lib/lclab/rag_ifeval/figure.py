"""Figure of notebook 07: every condition and pooled measure per model, with bootstrap CIs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import PAGE, plt, save_figure
from .rules import CONDITION_METRICS, SCORES


def rag_ifeval_figure(summaries: pd.DataFrame, title: str, path: Path, meta: dict | None = None):
    """Per condition and pooled measure, one bar per model, with bootstrap 95 % CIs and the count of scores."""
    metrics = list(SCORES)
    data = summaries[summaries.metric.isin(metrics) & (summaries.n > 0)]
    models = list(dict.fromkeys(data.model))
    fig, ax = plt.subplots(figsize=(PAGE, 2.8))
    width = 0.8 / max(1, len(models))
    for i, (model, colour) in enumerate(zip(models, sns.color_palette(n_colors=len(models)))):
        part = data[data.model == model].set_index("metric").reindex(metrics)
        x = [j + (i - (len(models) - 1) / 2) * width for j in range(len(metrics))]
        err = [(part.score - part.lo).clip(lower=0).fillna(0), (part.hi - part.score).clip(lower=0).fillna(0)]
        ax.bar(x, part.score, width, yerr=err, capsize=2, color=colour, label=model)
    counts = data.groupby("metric").n.max().reindex(metrics)
    ax.set_xticks(range(len(metrics)),
                  labels=[f"{m}\n(n={int(n)})" if pd.notna(n) else m for m, n in counts.items()])
    conditions = sum(m in CONDITION_METRICS for m in metrics)
    ax.axvline(conditions - 0.5, color="grey", linewidth=0.8)  # conditions | pooled measures
    ax.set(ylim=(0, 1.05), ylabel="mean score (bootstrap 95 % CI)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return save_figure(fig, path, title, meta)
