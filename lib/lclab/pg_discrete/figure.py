"""Figure of notebook 03: ROC curves and calibration of each scorer against the maintainer's labels."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import seaborn as sns

from ..figures import PAGE, draw_reliability, interval_text, plt, save_figure
from ..scoring.score_eval import roc_points
from .points import SCORERS, usable

SCORER_STYLES = {"logprob-weighted p(1)": "-", "sampled 0/1 token": "--"}


def score_separation_figure(scored: pd.DataFrame, separation: pd.DataFrame, calibration: pd.DataFrame,
                            title: str, path: Path, meta: dict | None = None):
    """ROC curves and calibration against the maintainer's labels: one colour per model, one line style per scorer."""
    fig, (roc_ax, cal_ax) = plt.subplots(1, 2, figsize=(PAGE, 3.2))
    if not len(separation):  # every call failed: save_figure says there is nothing to draw
        return save_figure(fig, path, title, meta)
    colours = dict(zip(separation["model"].unique(), sns.color_palette(n_colors=separation["model"].nunique())))
    points = usable(scored)
    for row in separation.itertuples():
        column = next(k for k, v in SCORERS.items() if v == row.scorer)
        group = points[(points["model"] == row.model) & points[column].notna()]
        if group["label"].nunique() < 2:
            continue
        fpr, tpr = roc_points(group["label"].astype(int), group[column])
        roc_ax.plot(fpr, tpr, SCORER_STYLES[row.scorer], color=colours[row.model], drawstyle="steps-post",
                    label=f"{row.model}, {row.scorer}: AUC {row.auc:.2f} "
                          f"{interval_text(row.auc_lo, row.auc_hi, 'too few questions')}")
    if not roc_ax.lines:  # every model's labelled points of one class: no curve can be drawn
        roc_ax.text(0.35, 0.8, "labelled points of one class only:\nno ROC curve", ha="center", va="center")
    roc_ax.plot([0, 1], [0, 1], ":", color="grey")
    roc_ax.set(xlabel="false-positive rate", ylabel="true-positive rate", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title="ROC against the maintainer's labels\n(AUC [bootstrap 95 % CI over questions])")
    if roc_ax.get_legend_handles_labels()[1]:
        roc_ax.legend(loc="lower right", fontsize=7)
    for (model, scorer), group in calibration.groupby(["model", "scorer"], sort=False):
        draw_reliability(cal_ax, group, f"{model}, {scorer}", fmt="o" + SCORER_STYLES[scorer], color=colours[model])
    cal_ax.set(ylabel="share labelled\n'contains the golden response'",
               title="Calibration (5 bins;\nbars: Wilson 95 % CI over points)")
    cal_ax.legend(loc="upper left", fontsize=7)
    return save_figure(fig, path, title, meta)
