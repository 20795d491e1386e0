"""--plan says how wide a judged rate's corrected interval will be with 30, 60, 120 labels, before the run."""

import numpy as np
import pandas as pd
import pytest
from lclab import paths
from lclab.planning.design import labels_line, ppi_half_width
from lclab.stats.corrected import corrected_rate

DEFAULT_01 = {"model": "local/qwen2.5-coder-0.5b", "judge_model": "", "corpus": "paul_graham",
              "qa_path": "data/pg_qa/qa.csv", "n_qa": 14, "context_tokens": [1500], "depths": [0, 50, 100]}


def test_the_planned_half_width_matches_ppi_on_simulated_runs():
    rng = np.random.default_rng(0)
    widths = []
    for _ in range(300):
        truth = rng.random(600) < 0.6
        verdicts = (truth & (rng.random(600) < 0.8)) | (~truth & (rng.random(600) >= 0.9))
        labels = np.full(600, np.nan)
        drawn = rng.choice(600, 60, replace=False)
        labels[drawn] = truth[drawn]
        row = corrected_rate(verdicts.astype(float), labels, bootstrap_rg=False)
        widths.append((row["ppi_hi"] - row["ppi_lo"]) / 2)
    assert ppi_half_width(600, 60, 0.6, 0.8, 0.9) == pytest.approx(sum(widths) / len(widths), rel=0.06)


def test_the_line_uses_the_prior_then_an_earlier_card_with_labels():
    line = labels_line("01_lost_in_the_middle", DEFAULT_01)
    assert "answer correct (01) over about 42 judged texts" in line and "stated prior" in line
    assert "30: ±" in line and "120" not in line.split("(")[1]  # 120 labels are more than 42 texts
    run = paths.RESULTS / "depth_sweep" / "labelled"
    run.mkdir(parents=True)
    pd.DataFrame([{"metric": "answer correct (01)", "n_labelled": 40, "base_rate": 0.3, "sensitivity": 0.95,
                   "specificity": 0.97}]).to_csv(run / "reliability.csv", index=False)
    measured = labels_line("01_lost_in_the_middle", DEFAULT_01)
    assert "run labelled, 40 labels" in measured and "sensitivity 0.95" in measured
    assert measured != line
