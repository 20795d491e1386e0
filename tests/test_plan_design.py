"""--plan says before a run what its n can show: from a stated prior, then from an earlier run's spread."""


import pandas as pd
from lclab import paths
from lclab.planning.design import PRIOR_SD, design_line

SMOKE_01 = {"model": "local/qwen2.5-coder-0.5b", "judge_model": "", "corpus": "paul_graham",
            "qa_path": "data/pg_qa/qa.csv", "n_qa": 14, "context_tokens": [1500], "depths": [0, 50, 100]}


def test_the_design_line_uses_the_stated_prior_without_an_earlier_run():
    line = design_line("01_lost_in_the_middle", SMOKE_01)
    assert line.startswith("01_lost_in_the_middle: 14 QA pairs (3 items each) for depth 100 − depth 0")
    # t(13) quantile 2.160 x 0.5 / sqrt(14) = 0.289
    assert "half-width ±0.29" in line and f"{PRIOR_SD:.2f}: stated prior" in line
    # The smallest n with t(n - 1) x 0.5 / sqrt(n) <= 0.10 (the normal's 1.96 would say 97): n = 99 gives
    # 1.9845 x 0.5 / 9.950 = 0.0997.
    assert "needs about 99 QA pairs" in line
    few = design_line("01_lost_in_the_middle", SMOKE_01 | {"n_qa": 2})
    assert "uninformative" in few and "only large effects" in few


def test_an_earlier_run_replaces_the_prior_with_its_measured_spread():
    run = paths.RESULTS / "depth_sweep" / "earlier"
    run.mkdir(parents=True)
    # Per QA pair, depth 100 minus depth 0: 1, 0, 0, -1 -> SD 0.816 (ddof 1).
    outcomes = {"q1": (1, 0), "q2": (1, 1), "q3": (0, 0), "q4": (0, 1)}
    rows = [{"qa_id": q, "context_tokens": 1500, "depth": d, "judge_correct": bool(v)}
            for q, (deep, top) in outcomes.items() for d, v in ((100, deep), (0, top))]
    pd.DataFrame(rows).to_json(run / "result_items.jsonl", orient="records", lines=True)
    line = design_line("01_lost_in_the_middle", SMOKE_01)
    assert "SD of per-cluster differences 0.82: run earlier, 4 QA pairs" in line


def test_an_earlier_run_without_spread_gives_way_to_the_stated_prior():
    run = paths.RESULTS / "depth_sweep" / "alike"
    run.mkdir(parents=True)
    # Every QA pair came out the same at depths 0 and 100: SD 0, which says nothing of the next set's spread.
    rows = [{"qa_id": q, "context_tokens": 1500, "depth": d, "judge_correct": v}
            for q, v in (("q1", True), ("q2", False), ("q3", True)) for d in (0, 100)]
    pd.DataFrame(rows).to_json(run / "result_items.jsonl", orient="records", lines=True)
    line = design_line("01_lost_in_the_middle", SMOKE_01)
    assert "half-width ±0.29" in line and "stated prior: run alike, 3 QA pairs had no spread, SD 0.00" in line


def test_a_notebook_without_a_declared_design_gets_no_line():
    assert design_line("03_pg_discrete_retrieval", {}) is None
