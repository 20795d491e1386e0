"""What every figure shares: one house style, sized for a paper's column, and one way to save.

Each experiment draws its own figure in its own folder (`lclab/<experiment>/figure.py`) at `COLUMN` (one
column, 3.5 in) or `PAGE` (both columns, 7.2 in) wide, in 7-8 pt type and a colour-blind-safe palette.
`save_figure` writes the PNG with its PDF and SVG twins beside it; the title, the run and the models go
into each file's metadata, not onto the figure, where a paper would have to crop them.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    # Scripts and tests have no display. A notebook kernel (papermill's too) keeps its inline backend, which
    # draws each figure into the executed notebook and so into the HTML report.
    matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import seaborn as sns  # noqa: E402

from .stats import p_text  # noqa: E402  (quoted beside the figures' intervals; defined with the statistics)

COLUMN = 3.5  # inches: one column of a two-column paper
PAGE = 7.2  # inches: both columns
FORMATS = (".png", ".pdf", ".svg")
DPI = 300  # the PNG's


def house_style() -> None:
    """Type, lines and colours for every figure of the lab (applied when this module is imported)."""
    sns.set_palette("colorblind")  # tells the series apart for readers with any common colour-vision deficiency
    plt.rcParams.update({
        "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "legend.fontsize": 6.5, "xtick.labelsize": 7,
        "ytick.labelsize": 7, "lines.linewidth": 1.2, "lines.markersize": 4, "axes.spines.top": False,
        "axes.spines.right": False, "legend.frameon": False, "savefig.bbox": "tight", "savefig.pad_inches": 0.02,
        "pdf.fonttype": 42, "svg.fonttype": "none",  # text stays text: editable and searchable in the PDF and SVG
        "svg.hashsalt": "lclab",  # the SVG's element ids from a fixed salt, not a random one: same figure, same bytes
    })


house_style()
# A run whose every call failed has nothing to put in a legend; `save_figure` then says so on the figure instead.
warnings.filterwarnings("ignore", message="No artists with labels found to put in legend")

NOTHING_TO_PLOT = "no scored items: every item failed or none could be scored (the run's failures say why)"


def _holds_data(ax) -> bool:
    """Whether an axes shows any finite data point: an error bar drawn from NaN rates adds artists, not data."""
    import numpy as np
    from matplotlib.collections import LineCollection, PathCollection

    def finite(values) -> bool:
        values = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan) if values is not None else np.array([])
        return bool(values.size) and bool(np.isfinite(values).any())

    for line in ax.lines:
        xy = np.asarray(line.get_xydata(), dtype=float)
        if xy.size and np.isfinite(xy).all(axis=1).any():
            return True
    for artist in ax.collections:
        if isinstance(artist, LineCollection):
            if any(finite(segment) for segment in artist.get_segments()):
                return True
        elif isinstance(artist, PathCollection):
            if finite(artist.get_offsets()):
                return True
        elif finite(artist.get_array()):  # a heatmap's cells
            return True
    if any(finite(image.get_array()) for image in ax.images):
        return True
    return any(finite(p.get_height()) and p.get_height() != 0 for p in ax.patches if hasattr(p, "get_height"))


def save_figure(fig, path: Path, title: str | None = None, meta: dict | None = None, caption: str | None = None):
    """Lay the figure out and write `path` (PNG) with its PDF and SVG twins; returns the figure for display.

    `title` and `meta` ({"run": ..., "model": ...}) are written into each file's metadata. A figure none of
    whose axes holds data (a run whose calls all failed) is drawn as one line saying so, not as empty axes.
    `caption`: what a reader must see with the numbers (who judged them and the judge's card), in small type
    under the axes.
    """
    if not any(_holds_data(ax) for ax in fig.axes):
        caption = None  # nothing was judged: the one line says so, no judge to name
        width = fig.get_figwidth()
        fig.clear()
        fig.set_size_inches(width, 1.0)
        fig.text(0.5, 0.5, _wrapped(fig, NOTHING_TO_PLOT, plt.rcParams["font.size"]), ha="center", va="center")
    fig.tight_layout()
    _legends_off_the_data(fig)
    if caption:
        fig.text(0.0, 0.0, _wrapped(fig, caption, 5.5), ha="left", va="top", fontsize=5.5, color="0.3")
        meta = {**(meta or {}), "caption": caption}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = meta or {}
    described = "; ".join(f"{k}: {v}" for k, v in meta.items())
    keywords = [str(v) for v in meta.values()]
    metadata = {
        ".png": {"Title": title or "", "Description": described, "Software": "lclab"},
        # No creation date in the PDF or SVG: a rerun of the same run writes the same bytes (git and diff see no
        # change where the picture has none).
        ".pdf": {"Title": title or "", "Subject": described, "Keywords": ", ".join(keywords), "Creator": "lclab",
                 "CreationDate": None},
        ".svg": {"Title": title or "", "Description": described, "Keywords": keywords, "Creator": "lclab",
                 "Date": None},
    }
    for suffix in FORMATS:
        fig.savefig(path.with_suffix(suffix), dpi=DPI, metadata=metadata[suffix])
    return fig


def _wrapped(fig, text: str, size: float) -> str:
    """`text` at `size` points broken into lines where matplotlib's wrap=True breaks a figure-wide text in the PNG
    (a line takes words while it fits the figure's width), worked out once: wrap=True measures the lines again,
    word by word, at every draw, and a saved figure is drawn about ten times (laid out, checked for covered points,
    written in three formats, shown in the notebook): a quarter of its saving time."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    room = fig.get_figwidth() * DPI  # pixels, measured as the PNG draws them (hinting widens small type at 100 dpi)
    renderer, font = RendererAgg(1, 1, DPI), FontProperties(size=size)  # it only measures: no canvas to draw on
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            longer = f"{line} {word}" if line else word
            if line and renderer.get_text_width_height_descent(longer, font, ismath=False)[0] > room:
                lines.append(line)
                longer = word
            line = longer
        lines.append(line)
    return "\n".join(lines)


def _plotted_points(ax):
    """Display coordinates of what an axes plots: its lines' points and its error bars (each bar sampled along
    its length, so a text across the middle of an interval counts)."""
    import numpy as np
    from matplotlib.collections import LineCollection

    xy = [np.asarray(line.get_xydata(), dtype=float) for line in ax.lines if line.get_visible() and
          len(line.get_xydata())]
    for artist in ax.collections:
        if isinstance(artist, LineCollection) and artist.get_visible():
            xy += [np.linspace(seg[0], seg[-1], 21) for seg in map(np.asarray, artist.get_segments()) if len(seg) >= 2]
    points = ax.transData.transform(np.concatenate(xy)) if xy else np.empty((0, 2))
    return points[np.isfinite(points).all(axis=1)]


def covered_points(fig) -> list[str]:
    """Each legend (of an axes or of the figure) and each text in an axes that covers a plotted point or error bar
    of any axes, as "<what> covers <n> points of <axes title>": nothing written may hide what is drawn."""
    # A legend's place is known once the figure is laid out: laid out, not painted (painting every pixel to find
    # a few boxes was a third of the time a figure took to save)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    legends = [(ax.get_legend(), ax) for ax in fig.axes if ax.get_legend() is not None] + [(lg, None) for lg in
                                                                                         fig.legends]
    covers = [(f"the legend of {owner.get_title() if owner else 'the figure'!r}", legend.get_window_extent(renderer))
              for legend, owner in legends]
    covers += [(f"the text {text.get_text()[:40]!r}", text.get_window_extent(renderer)) for ax in fig.axes
               for text in ax.texts if text.get_visible() and text.get_text().strip()]
    out = []
    for what, box in covers:
        for ax in fig.axes:
            points = _plotted_points(ax)
            inside = ((points[:, 0] >= box.x0) & (points[:, 0] <= box.x1) & (points[:, 1] >= box.y0)
                      & (points[:, 1] <= box.y1)).sum()
            if inside:
                out.append(f"{what} covers {inside} points of {ax.get_title()!r}")
    return out


def legend_below(ax, fontsize: float = 6.5, below: float = -0.25, **kw):
    """The axes' legend below it, as wide as the axes: labels wrapped to that width and as many columns as fit, so
    that two panels' legends side by side do not run into each other (nor squeeze the axes). None, and no box, when
    nothing in the axes is labelled (one class only: no ROC curve); `kw` goes to `ax.legend` (a title)."""
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    if not labels:
        return None
    fits = max(16, int(ax.get_position().width * ax.get_figure().get_figwidth() * 72 / (0.55 * fontsize)))
    wrapped = ["\n".join(textwrap.wrap(label, fits)) or label for label in labels]
    longest = max(len(line) for label in wrapped for line in label.splitlines())
    return ax.legend(handles, wrapped, loc="upper center", bbox_to_anchor=(0.5, below), fontsize=fontsize,
                     ncol=max(1, min(3, len(labels), fits // (longest + 6))), **kw)


def _legends_off_the_data(fig) -> None:
    """Move an axes legend that covers plotted points below its axes (where it covers none); a legend that still
    covers points is an error under LCLAB_STRICT_FIGURES=1 (the tests), a warning otherwise."""
    import os

    covered = covered_points(fig)  # again only after a legend moved: each look lays the whole figure out
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and covered:
            size = legend.get_texts()[0].get_fontsize() if legend.get_texts() else 7
            # Below its own axes, where it covers none; an empty box (nothing labelled was drawn) is removed
            if legend_below(ax, fontsize=size, title=legend.get_title().get_text() or None) is not None:
                fig.tight_layout()
            covered = covered_points(fig)
    if problems := covered:
        if os.environ.get("LCLAB_STRICT_FIGURES") == "1":
            raise AssertionError("; ".join(problems))
        warnings.warn("; ".join(problems))


def interval_text(lo: float, hi: float, too_few: str) -> str:
    """A 95 % interval as a legend quotes it, "[lo, hi]"; one that is undefined (NaN: too few clusters to
    resample, e.g. a smoke run's one question) says why (`too_few`) rather than "[nan, nan]"."""
    if lo != lo or hi != hi:
        return f"(no interval: {too_few})"
    return f"[{lo:.2f}, {hi:.2f}]"


def draw_reliability(ax, table, label: str, **style) -> None:
    """A reliability curve: per score bin, the share labelled 1 (Wilson 95 % CI) against the mean score, with
    the diagonal a calibrated score would follow; each bin's count in the legend, left to right (written beside
    each point, the counts of two scorers lay over each other's points). `table`: score_eval.calibration_table."""
    if len(table) == 0:
        return
    yerr = [table["observed"] - table["observed_lo"], table["observed_hi"] - table["observed"]]
    counts = ", ".join(str(int(n)) for n in table.sort_values("mean_score")["n"])
    ax.errorbar(table["mean_score"], table["observed"], yerr=yerr, fmt=style.pop("fmt", "o-"), capsize=3,
                label=f"{label} (n per bin, left to right: {counts})", **style)
    ax.plot([0, 1], [0, 1], ":", color="grey")
    ax.set(xlabel="mean score in bin", ylabel="share labelled 1", xlim=(-0.02, 1.02), ylim=(-0.05, 1.05))


__all__ = ["COLUMN", "PAGE", "draw_reliability", "interval_text", "legend_below", "p_text", "plt", "save_figure"]


def series_interval(summary, source: str) -> str:
    """The 95 % interval a judged summary's series carries, for its legend or title: Wilson for the raw rates
    (`judge`, `match`), else how its cells were read (`corrected_interval`: the labels' own rate, PPI++, or the
    card's correction, lclab.scoring.judge_reading), never a name the series does not have."""
    named = summary.get(f"{source}_interval") if source == "corrected" else None
    kinds = sorted(set(named.dropna())) if named is not None else []
    return "; ".join(kinds) if kinds else "Wilson"
