"""What every figure shares: a backend that needs no display, and one way to save.

Each experiment draws its own figure in its own folder (`lclab/<experiment>/figure.py`).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # notebooks under papermill and CI have no display
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


def save_figure(fig, path: Path):
    """Lay the figure out and write it (creating the folder); returns the figure for display."""
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    return fig


def draw_reliability(ax, table, label: str, **style) -> None:
    """A reliability curve: per score bin, the share labelled 1 (Wilson 95 % CI) against the mean score, with
    the diagonal a calibrated score would follow and each bin's count. `table`: score_eval.calibration_table."""
    if len(table) == 0:
        return
    yerr = [table["observed"] - table["observed_lo"], table["observed_hi"] - table["observed"]]
    line = ax.errorbar(table["mean_score"], table["observed"], yerr=yerr, fmt=style.pop("fmt", "o-"), capsize=3,
                       label=label, **style)
    for r in table.itertuples():
        ax.annotate(f"n={r.n}", (r.mean_score, r.observed), textcoords="offset points", xytext=(4, 4), fontsize=7,
                    color=line[0].get_color())
    ax.plot([0, 1], [0, 1], ":", color="grey")
    ax.set(xlabel="mean score in bin", ylabel="share labelled 1", xlim=(-0.02, 1.02), ylim=(-0.05, 1.05))


__all__ = ["draw_reliability", "plt", "save_figure"]
