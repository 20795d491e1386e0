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


__all__ = ["plt", "save_figure"]
