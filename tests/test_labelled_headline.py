"""02's headline reads the run's own labels as its summary rows do: with every judged text labelled, long
context − RAG is the labels' own difference, not the card's correction of the judge's."""

import types

import pandas as pd
import pytest
from lclab.context_vs_rag.run import effect_headline, method_effects
from lclab.scoring import labels as label_files
from lclab.scoring.labels import row_key

FIELDS = ("question", "reference", "response")


@pytest.fixture
def items(tmp_path, monkeypatch):
    """12 QA pairs at 100 % noise, each answered by both arms; the judge says every answer is right, the labels
    say long context is right on 9 pairs and RAG on 4."""
    rows, labels = [], []
    for i in range(12):
        for method, right in (("long_context", i < 9), ("rag", i < 4)):
            row = {"qa_id": f"q{i}", "noise_pct": 100, "method": method, "question": f"What is {i}?",
                   "gold": f"gold {i}", "response": f"{method} says {i}", "judge_correct": True, "answerable": True}
            rows.append(row)
            labels.append({"key": row_key({**row, "reference": row["gold"]}, FIELDS), "label": int(right)})
    monkeypatch.setattr(label_files, "LABELS", tmp_path)
    pd.DataFrame(labels).to_csv(tmp_path / "answer_correct.csv", index=False)
    return pd.DataFrame(rows)


CARD = types.SimpleNamespace(informative=True, judge=types.SimpleNamespace(label="fake/judge"),
                             difference=lambda *a: {"corrected": 0.28, "corrected_lo": -0.47, "corrected_hi": 1.0})


def test_with_every_text_labelled_the_headline_is_the_labels_difference(items):
    effects, _ = method_effects(items, "judge_correct", CARD)
    said = effect_headline(effects, CARD)
    assert said["value"] == pytest.approx(9 / 12 - 4 / 12) and "this run's labels" in said["metric"]
    assert said["lo"] < said["value"] < said["hi"]
    assert effects.iloc[-1]["corrected"] == 0.28  # the card's correction is still in the effects table


def test_without_enough_labels_the_card_corrects_the_headline(items, tmp_path):
    (tmp_path / "answer_correct.csv").write_text("key,label\n")
    effects, _ = method_effects(items, "judge_correct", CARD)
    said = effect_headline(effects, CARD)
    assert said["value"] == 0.28 and "shipped card" in said["metric"]
