"""The closed-book arm of 01 and 02: a QA pair the model answers without its passage is flagged, and the reading gain is
paired by QA pair (lclab.qa.closed_book), on hand-made rows."""

import pandas as pd
import pytest
from lclab.qa.closed_book import closed_book_samples, known_pairs, reading_gain
from lclab.prompts import render


def rows(outcomes: dict[str, list[bool]]) -> pd.DataFrame:
    return pd.DataFrame([{"qa_id": q, "context_tokens": 800, "depth": d, "judge_correct": v}
                         for q, vs in outcomes.items() for d, v in zip((0, 50, 100), vs)])


def test_the_reading_gain_is_paired_by_qa_pair_and_known_pairs_are_flagged():
    items = rows({"q1": [True, True, False], "q2": [True, True, True], "q3": [False, True, False],
                  "q4": [True, False, False]})
    closed = pd.DataFrame({"qa_id": ["q1", "q2", "q3", "q4"], "judge_correct": [False, True, False, False]})
    assert known_pairs(closed) == {"q2"}
    table = reading_gain(items, closed).set_index("arm")
    assert table.loc["with context", "acc"] == pytest.approx(7 / 12)
    assert table.loc["closed book", "acc"] == pytest.approx(0.25)
    # Per pair, with minus without: 2/3, 0, 1/3, 1/3 (mean 1/3 over equal clusters).
    gain = table.loc["reading gain (with − closed book, paired by QA pair)"]
    assert gain["acc"] == pytest.approx(1 / 3) and gain["qa_pairs"] == 4
    assert gain["lo"] < 1 / 3 < gain["hi"]
    assert table.loc["with context, pairs not known closed-book", "qa_pairs"] == 3


def test_a_closed_book_sample_holds_the_question_and_no_document():
    qa = pd.DataFrame({"qa_id": ["q1"], "question": ["Who founded Viaweb?"], "answer": ["Paul Graham"]})
    (sample,) = closed_book_samples(qa)
    assert sample.input == render("answer_closed_book", question="Who founded Viaweb?")
    assert "Document" not in sample.input and sample.target == "Paul Graham" and sample["cluster"] == "q1"


def test_an_unjudged_run_gives_an_empty_table():
    assert reading_gain(pd.DataFrame({"qa_id": []}), pd.DataFrame({"qa_id": []})).empty
