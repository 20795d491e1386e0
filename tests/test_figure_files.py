"""What a run draws never changes the checkout: figures/ is ignored by git, the figures the docs quote live in
docs/figures/, and a figure drawn twice is the same bytes in every format."""

import hashlib
import re
import shutil
import subprocess

import pytest
from lclab.figures import interval_text, plt, save_figure
from lclab.paths import REPO


def draw(path):
    fig, ax = plt.subplots()
    ax.errorbar([0, 50, 100], [0.5, 0.4, 0.6], yerr=0.1, fmt="o-", label="judge")
    ax.legend()
    save_figure(fig, path, "a title", {"run": "depth_sweep/quick"}, caption="judge local/qwen2.5-coder-1.5b")
    plt.close(fig)


def test_the_same_figure_drawn_twice_is_the_same_bytes(tmp_path):
    draw(tmp_path / "a.png")
    draw(tmp_path / "b.png")
    for suffix in (".png", ".pdf", ".svg"):
        first, second = (hashlib.sha256((tmp_path / f"{n}{suffix}").read_bytes()).hexdigest() for n in "ab")
        assert first == second, suffix


def test_a_long_caption_is_wrapped_to_the_figures_width_in_every_format(tmp_path):
    from PIL import Image
    from lclab.figures import COLUMN, DPI

    caption = " ".join(["judge local/qwen2.5-coder-1.5b (self-judged); card AUC 0.89 [0.50, 1.00]"] * 6)
    fig, ax = plt.subplots(figsize=(COLUMN, 2))
    ax.plot([0, 1], [0, 1])
    save_figure(fig, tmp_path / "c.png", caption=caption)
    shown = next(t for t in fig.texts if t.get_text().startswith("judge"))
    assert shown.get_text().replace("\n", " ") == caption and shown.get_text().count("\n") >= 3
    assert Image.open(tmp_path / "c.png").width <= (COLUMN + 0.1) * DPI  # one line of it would be ~6 columns wide
    width = re.search(r'<svg[^>]* width="([0-9.]+)pt"', (tmp_path / "c.svg").read_text()).group(1)
    assert float(width) <= (COLUMN + 0.1) * 72
    plt.close(fig)


def test_a_legend_below_its_panel_is_no_wider_than_the_panel_and_an_unlabelled_one_is_no_box():
    from lclab.figures import PAGE, legend_below

    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE, 3))
    for k in range(4):
        left.plot([0, 1], [0, k], label=f"qwen2.5-coder-0.5b, probability, c=1, tags (share supported) {k}: 0.50 "
                                        "(no interval: too few answers)")
    right.plot([0, 1], [0, 1], ":")
    assert legend_below(left, fontsize=6, title="AUC") is not None
    assert legend_below(right) is None and right.get_legend() is None
    fig.tight_layout()
    renderer = fig.canvas.get_renderer()
    assert left.get_legend().get_window_extent(renderer).width <= left.get_window_extent(renderer).width
    plt.close(fig)


def test_an_undefined_interval_is_named_in_a_legend_not_printed_as_nan():
    assert interval_text(0.25, 0.875, "too few questions") == "[0.25, 0.88]"
    assert interval_text(float("nan"), float("nan"), "too few questions") == "(no interval: too few questions)"


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(), reason="not a git checkout")
def test_run_figures_are_ignored_and_the_docs_figures_are_tracked():
    ignored = subprocess.run(["git", "check-ignore", "-q", "figures/depth_sweep_quick.png"], cwd=REPO)
    assert ignored.returncode == 0  # a run's figure never shows in git status
    assert subprocess.run(["git", "check-ignore", "-q", "figures/README.md"], cwd=REPO).returncode == 1
    tracked = subprocess.run(["git", "ls-files", "figures", "docs/figures"], cwd=REPO, capture_output=True,
                             text=True).stdout.split()
    assert [f for f in tracked if f.startswith("figures/")] == ["figures/README.md"]
    assert any(f.startswith("docs/figures/") and f.endswith(".png") for f in tracked)


def test_a_legend_over_the_data_is_moved_off_it_and_the_tests_fail_on_one_left(tmp_path, monkeypatch):
    import numpy as np
    from lclab.figures import covered_points

    x = np.linspace(0, 1, 30)
    fig, ax = plt.subplots()
    ax.plot(x, np.full(30, 0.1), "o-", label="recall@k, single-chunk questions")
    ax.plot(x, np.full(30, 0.05), "s-", label="multi-chunk")
    ax.legend(loc="lower right")
    ax.set_ylim(0, 1)
    assert covered_points(fig)  # placed over its own points
    save_figure(fig, tmp_path / "legend.png")
    assert covered_points(fig) == []
    plt.close(fig)
    fig, ax = plt.subplots()
    ax.plot(x, x, "o")
    fig.legend(["all over the data"], loc="center")  # a figure legend is not moved: the tests refuse it
    monkeypatch.setenv("LCLAB_STRICT_FIGURES", "1")
    with pytest.raises(AssertionError, match="covers"):
        save_figure(fig, tmp_path / "centre.png")
    plt.close(fig)


def test_an_empty_legend_over_the_data_is_removed_not_laid_out_in_zero_columns(tmp_path, monkeypatch):
    # 03's ROC panel when every labelled point is of one class: no curve, and a legend box with nothing in it.
    import numpy as np
    from lclab.figures import covered_points

    monkeypatch.setenv("LCLAB_STRICT_FIGURES", "1")
    grid = np.linspace(0, 1, 200)
    fig, ax = plt.subplots()
    ax.plot(*[a.ravel() for a in np.meshgrid(grid, grid)], ".")  # points everywhere, under any box
    ax.set(xlim=(0, 1), ylim=(0, 1))
    with pytest.warns(UserWarning, match="No artists with labels"):
        ax.legend(loc="lower right")
    assert covered_points(fig)
    save_figure(fig, tmp_path / "empty-legend.png")
    assert ax.get_legend() is None and covered_points(fig) == []
    plt.close(fig)


def test_a_text_over_an_error_bar_is_refused_and_the_effects_note_is_drawn_off_the_intervals(tmp_path, monkeypatch):
    import pandas as pd
    from lclab.depth_sweep.figure import _effects
    from lclab.figures import covered_points

    fig, ax = plt.subplots()
    ax.errorbar([0.0], [0.5], xerr=[[0.9], [0.9]], fmt="none")  # only a bar: no marker at its middle
    ax.set(xlim=(-1, 1), ylim=(0, 1))
    ax.text(0.5, 0.5, "a note", transform=ax.transAxes, ha="center", va="center")
    assert [c for c in covered_points(fig) if "a note" in c]  # the bar runs under the text
    plt.close(fig)
    effects = pd.DataFrame({"comparison": ["50 − 0", "edges − middle"], "effect": [0.1, -0.2],
                            "effect_lo": [-0.9, -1.0], "effect_hi": [1.0, 0.9], "p_value": [0.8, 0.6],
                            "n_pairs": [6, 6], "context_tokens": [600, 600]})
    fig, ax = plt.subplots()
    _effects(ax, effects)
    assert covered_points(fig) == [] and "only 6 QA pairs" in ax.get_title()
    monkeypatch.setenv("LCLAB_STRICT_FIGURES", "1")
    save_figure(fig, tmp_path / "effects.png")
    plt.close(fig)


def test_a_judged_series_names_the_interval_it_carries():
    import pandas as pd
    from lclab.figures import series_interval

    cells = pd.DataFrame({"corrected_interval": ["PPI++, cluster bootstrap-t", "PPI++, cluster bootstrap-t", None]})
    assert series_interval(cells, "corrected") == "PPI++, cluster bootstrap-t"
    assert series_interval(cells, "match") == "Wilson" and series_interval(pd.DataFrame(), "corrected") == "Wilson"
