"""The report a user shares: progress bars once at their last state (not a long red block of redraws), and only
the runs and figures of the notebooks it reports."""

from lclab.runs.report import _made_by, progress_lines


def test_each_progress_bar_is_kept_once_at_its_last_state_and_other_lines_stay():
    redraws = "".join(f"answer: {p:3d}%|{'#' * (p // 10):10s}| {p // 10}/10 [00:0{p // 20}<00:05]\r"
                      for p in range(0, 101, 10))
    text = redraws + "\nUserWarning: n_qa is 6 but only 4 pairs are validated\n" + \
        "judge:  50%|#####     | 5/10 [00:02<00:02]\rjudge: 100%|##########| 10/10 [00:04<00:00]\n"
    assert progress_lines(text).splitlines() == [
        "answer: 100%|##########| 10/10 [00:05<00:05]",
        "UserWarning: n_qa is 6 but only 4 pairs are validated",
        "judge: 100%|##########| 10/10 [00:04<00:00]"]


def test_a_figure_belongs_to_a_run_by_its_experiment_and_run_name(tmp_path):
    made = {("synthetic", "mydocs"), ("depth_sweep", "mydocs-qwen-127.0.0.1-8080")}
    assert _made_by(tmp_path / "synthetic_mydocs.png", made)
    assert _made_by(tmp_path / "depth_sweep_mydocs-qwen-127.0.0.1-8080.png", made)
    assert not _made_by(tmp_path / "synthetic_synthetic.png", made)  # a shipped reference figure
    assert not _made_by(tmp_path / "depth_sweep_mydocs-other.png", made)  # another run's


def test_the_comparisons_figures_belong_to_the_compare_notebooks_run(tmp_path):
    made = {(None, "mydocs")}  # 08_compare_runs registers no experiment of its own
    assert _made_by(tmp_path / "compare_depth_sweep_mydocs.png", made)
    assert not _made_by(tmp_path / "depth_sweep_mydocs.png", made)  # a registered experiment's own figure
    assert not _made_by(tmp_path / "compare_depth_sweep_default.png", made)
