"""A labelling sheet's random subset: every item equally likely, spread over the clusters, blind to the judge."""

import json

import numpy as np
import pandas as pd
from lclab.scoring.labelling import draw, hidden_columns, sheet


def test_every_item_is_equally_likely_and_each_draw_spreads_over_the_clusters():
    table = pd.DataFrame({"key": [f"k{i}" for i in range(60)], "cluster": [f"c{i // 3}" for i in range(60)]})
    counts = pd.Series(0, index=table["key"])
    for seed in range(2000):
        got = draw(table, 20, seed)
        assert len(got) == 20 and got["key"].is_unique
        assert got["cluster"].nunique() == 20  # 20 clusters of 3, 20 drawn: one from each
        counts[got["key"]] += 1
    share = counts / 2000
    assert np.allclose(share, 20 / 60, atol=0.04)  # each item drawn a third of the time


def test_a_sheet_from_a_run_folder_carries_the_cluster_and_no_verdict(tmp_path):
    rows = [{"qa_id": f"q{i // 2}", "question": f"Q{i}?", "gold": "A", "response": f"R{i}", "judge_correct": True,
             "string_match": False} for i in range(10)]
    (tmp_path / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = sheet("answer_correct", tmp_path)
    assert {"key", "question", "reference", "response", "cluster", "label", "note"} == set(table.columns)
    assert not any(c.startswith(hidden_columns()) for c in table.columns)
    got = draw(table, 5, seed=1)
    assert len(got) == 5 and got["cluster"].nunique() == 5
