"""Comparing runs: series and pairs from the runs' own files, and a refusal naming the field when runs differ in
what makes them comparable (run folders planted here; the default suite compares real ones)."""

import json

import pandas as pd
import pytest
from lclab import paths
from lclab.compare import IncomparableRunsError, compare_runs, select
from lclab.runs.index import run_index


def plant(run: str, model: str, verdicts: list[bool], budget: int = 1500, qa_sha: str = "aaa",
          judge: str = "local/qwen2.5-coder-1.5b") -> None:
    folder = paths.RESULTS / "depth_sweep" / run
    folder.mkdir(parents=True)
    parameters = {"model": model, "judge_model": judge, "corpus": "paul_graham", "qa_path": "data/pg_qa/qa.csv",
                  "n_qa": 4, "context_tokens": [budget], "depths": [0, 100], "seed": 0, "max_answer_tokens": 48}
    (folder / "manifest.json").write_text(json.dumps({
        "experiment": "depth_sweep", "run_name": run, "status": "finished", "parameters": parameters,
        "inputs": {"qa_path": qa_sha}, "ended": f"2026-11-22T0{len(run)}:00:00", "n_items": len(verdicts),
        "headline": {"metric": "judge accuracy, all cells", "value": sum(verdicts) / len(verdicts)},
        "accounting": {"calls": 8}, "wall_s": 60}))
    rows = [{"qa_id": f"q{i // 2}", "context_tokens": budget, "depth": [0, 100][i % 2], "judge_correct": v}
            for i, v in enumerate(verdicts)]
    pd.DataFrame(rows).to_json(folder / "result_items.jsonl", orient="records", lines=True)


def test_two_models_are_drawn_together_and_paired_by_qa_pair():
    plant("big", "local/qwen2.5-coder-1.5b", [True, True, True, False, True, True, False, True])
    plant("small", "local/qwen2.5-coder-0.5b", [False, False, True, False, False, True, False, False])
    result = compare_runs(["depth_sweep"], run_name="t")
    paired = result.tables["paired"].iloc[0]
    assert paired["series"] == "small | qwen2.5-coder-0.5b" and paired["vs"] == "big | qwen2.5-coder-1.5b"
    assert paired["n_pairs"] == 8 and paired["effect"] == pytest.approx(-4 / 8)
    # 8 items in 4 QA pairs (the cluster is part of the item key): the t test of the 4 per-pair mean differences
    # (-1, 0, -0.5, -0.5) with 3 df; as 8 independent pairs it would have 7 df and a smaller p.
    from scipy.stats import ttest_1samp

    per_pair = ttest_1samp([-1, 0, -0.5, -0.5], 0.0)
    assert paired["n_clusters"] == 4 and paired["test"] == "cluster t (cluster-robust SE)"
    assert paired["p_value"] == pytest.approx(per_pair.pvalue)
    assert (paired["effect_lo"], paired["effect_hi"]) == pytest.approx(tuple(per_pair.confidence_interval()))
    cells = result.summary.set_index(["series", "x"])
    assert cells.loc[("big | qwen2.5-coder-1.5b", 0), "value"] == pytest.approx(3 / 4)
    for suffix in (".png", ".pdf", ".svg"):
        assert (paths.FIGURES / f"compare_depth_sweep_t{suffix}").stat().st_size > 5_000
    assert set(run_index()["experiment"]) == {"depth_sweep", "compare"}


@pytest.mark.parametrize("change, field", [({"budget": 3000}, "context_tokens: [1500] vs [3000]"),
                                           ({"qa_sha": "bbb"}, "qa_path (file contents): aaa vs bbb"),
                                           ({"judge": "local/qwen2.5-coder-0.5b"}, "judge_model: ")])
def test_runs_that_differ_in_what_makes_them_comparable_are_refused_naming_the_field(change, field):
    plant("one", "local/qwen2.5-coder-1.5b", [True, False])
    plant("two", "local/qwen2.5-coder-0.5b", [True, True], **change)
    with pytest.raises(IncomparableRunsError, match="depth_sweep/one, depth_sweep/two are not comparable") as err:
        compare_runs(["depth_sweep/one", "depth_sweep/two"], run_name="t")
    assert field in str(err.value)
    forced = compare_runs(["depth_sweep/one", "depth_sweep/two"], run_name="t2", force=True)
    assert any(field in note for note in forced.notes)


def test_an_unknown_run_is_an_error_naming_it():
    with pytest.raises(FileNotFoundError, match="no finished run 'depth_sweep/nope'"):
        select(["depth_sweep/nope"])


def test_rag_ifeval_cells_name_each_measure_once():
    from lclab.compare.pairs import summary_table

    part = pd.DataFrame({"id": [1, 2, 3], "include": [1.0, 0.0, 1.0], "total": [0.5, 0.2, 0.8]})
    cells = summary_table({"a": part}, "rag_ifeval")
    assert cells["x"].tolist() == ["include", "total"]  # the total once: the figure indexes by measure
    assert cells.set_index("x").loc["total", "value"] == pytest.approx(0.5)


def test_an_auc_series_interval_resamples_the_experiments_unit():
    import numpy as np
    from lclab.compare.pairs import summary_table
    from lclab.stats.card import cluster_auc_ci

    questions = np.repeat([f"q{i}" for i in range(6)], 2)
    part = pd.DataFrame({"point_id": [f"{q}:{c}" for q, c in zip(questions, ["pos", "neg"] * 6)],
                         "question_id": questions, "label": [1, 0] * 6, "labelled": True, "ambiguous": False,
                         "weighted": np.linspace(0.1, 0.9, 12), "sampled": 1.0})
    row = summary_table({"a": part}, "pg_discrete").iloc[0]
    assert (row["lo"], row["hi"]) == cluster_auc_ci(part["label"].to_numpy(), part["weighted"].to_numpy(), questions)
    assert (row["n"], row["n_clusters"], row["unit"]) == (12, 6, "questions")
