"""What a run draws never changes the checkout: figures/ is ignored by git, the figures the docs quote live in
docs/figures/, and a figure drawn twice is the same bytes in every format."""

import hashlib
import shutil
import subprocess

import pytest
from lclab.figures import plt, save_figure
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
