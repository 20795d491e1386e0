"""Unanswerable items: the refusal rule, and abstention beside the answer rate, computed by hand."""

import math

import pandas as pd
import pytest
from lclab.scoring.refusal import refusal_cue
from lclab.stats.abstention import abstention_table
from lclab.text.context import ABSENT_REPLY


@pytest.mark.parametrize("reply, refused", [(ABSENT_REPLY, 1.0), ("It is not in the documents.", 1.0),
                                            ("Unanswerable.", 1.0), ("I don't know", 1.0), ("Paris", 0.0),
                                            ("The text says 1889.", 0.0), ("", 0.0)])
def test_the_refusal_rule(reply, refused):
    assert refusal_cue(reply).value == refused


def test_the_refusal_rule_names_its_phrase_and_leaves_a_missing_reply_unscored():
    assert refusal_cue("Sorry, it is not in the text.").columns("abstained", explanation="phrase") == {
        "abstained": 1.0, "abstained_error": None, "phrase": "not in the text"}
    missing = refusal_cue(None)
    assert not missing.scored and missing.unscored == "no reply to read"


def test_abstention_beside_the_answer_rate_by_hand():
    rows = [  # four answerable units (two items each), three unanswerable ones
        *[{"cluster": f"a{i}", "answerable": True, "score": s, "abstained": r}
          for i, pairs in enumerate([[(1, 0), (1, 0)], [(0, 1), (0, 0)], [(1, 0), (0, 0)], [(1, 0), (1, 0)]])
          for s, r in pairs],
        *[{"cluster": f"u{i}", "answerable": False, "score": r, "abstained": r} for i, r in enumerate([1, 0, 1])],
    ]
    table = abstention_table(pd.DataFrame(rows).assign(task="t"), ["task"], "score", "abstained", "cluster")
    row = table.iloc[0]
    assert row["answerable_units"] == 4 and row["unanswerable_units"] == 3
    assert row["answered"] == pytest.approx(7 / 8) and row["accuracy"] == pytest.approx(5 / 8)
    assert row["abstained"] == pytest.approx(2 / 3)
    assert row["combined"] == pytest.approx((5 / 8 + 2 / 3) / 2)
    assert row["combined_lo"] < row["combined"] < row["combined_hi"]
    assert row["abstained_lo"] < 2 / 3 < row["abstained_hi"]


def test_no_unanswerable_item_no_table_and_one_unit_no_interval():
    answerable = pd.DataFrame({"task": "t", "cluster": ["a", "b"], "answerable": True, "score": [1, 0],
                               "abstained": [0, 0]})
    assert abstention_table(answerable, ["task"], "score", "abstained", "cluster").empty
    one = pd.concat([answerable, pd.DataFrame([{"task": "t", "cluster": "u", "answerable": False, "score": 1,
                                                "abstained": 1}])])
    row = abstention_table(one, ["task"], "score", "abstained", "cluster").iloc[0]
    assert row["abstained"] == 1 and math.isnan(row["abstained_lo"]) and math.isnan(row["combined_lo"])
