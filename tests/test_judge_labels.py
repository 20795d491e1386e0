"""The label files can carry κ, a second labeller gives the judge its ceiling, and 06's judge reads labelled
texts of both classes."""

import math

import pandas as pd
import pytest
from lclab.rag_validation import labelled_texts as lt
from lclab.runs.runner import Run
from lclab.scoring.labellers import SECOND, labeller_agreement
from lclab.scoring.labels import LABELS, label_key, load_labels
from lclab.scoring.reliability import card
from sklearn.metrics import cohen_kappa_score


@pytest.mark.parametrize("name", ["rag_relevance", "rag_faithfulness"])
def test_relevance_and_faithfulness_labels_hold_both_classes(name):
    labels = load_labels(name)
    assert len(labels) >= 60
    assert min(labels.mean(), 1 - labels.mean()) >= 0.30  # the minority class, so κ and AUC rest on many items


@pytest.mark.parametrize("name", ["rag_relevance", "rag_faithfulness"])
def test_every_label_key_is_the_hash_of_its_texts(name):
    fields = {"rag_relevance": ("question", "response"), "rag_faithfulness": ("question", "response", "passages")}
    table = pd.read_csv(LABELS / f"{name}.csv", dtype=str, keep_default_na=False)
    assert [label_key(*(r[f] for f in fields[name])) for _, r in table.iterrows()] == table["key"].tolist()


@pytest.mark.parametrize("name", ["rag_relevance", "rag_faithfulness"])
def test_the_second_labeller_covers_50_texts_and_kappa_is_sklearns(name):
    second = pd.read_csv(SECOND / f"{name}.csv", dtype=str)
    assert len(second) >= 50 and set(second["blind"]) <= {"yes", "no"}
    both = second.merge(pd.read_csv(LABELS / f"{name}.csv", dtype=str)[["key", "label"]], on="key")
    got = labeller_agreement(name)
    assert got["labellers_n"] == len(both) == len(second)
    assert got["labellers_kappa"] == pytest.approx(cohen_kappa_score(both["label_x"], both["label_y"]))
    assert got["labellers_kappa_lo"] <= got["labellers_kappa"] <= got["labellers_kappa_hi"]


def test_a_card_prints_the_labellers_kappa_beside_the_judges():
    verdicts = pd.Series([True, False] * 10)
    ceiling = {"labellers_n": 20, "labellers_kappa": 0.8, "labellers_kappa_lo": 0.6, "labellers_kappa_hi": 0.95}
    row = card("planted", "judge", verdicts, verdicts.astype(float), pd.Series(["logprobs"] * 20),
               pd.Series([1, 0] * 10, dtype=float), "words", pd.Series([0.5] * 20), labellers=ceiling)
    assert row["labellers_kappa"] == 0.8 and row["kappa"] == pytest.approx(1.0)
    assert "two labellers agree at κ 0.80 [0.60, 0.95] on 20 of these texts" in row["reading"]


def test_without_a_second_labeller_the_ceiling_is_left_empty():
    got = labeller_agreement("answer_correct")
    assert got["labellers_n"] == 0 and math.isnan(got["labellers_kappa"])


def test_the_judge_reads_labelled_texts_of_both_classes_and_gets_a_card(monkeypatch):
    """The real 0.5B judges one text of each class per judge (a smoke size of the 139 shipped)."""
    texts = lt.labelled_texts()
    labels = {c: load_labels(name) for c, (name, *_) in lt.FILES.items()}
    keep = pd.concat([texts[(texts["judge"] == c) & (texts["key"].map(labels[c]) == y)].head(1)
                      for c in lt.FILES for y in (0, 1)])
    monkeypatch.setattr(lt, "labelled_texts", lambda: keep)
    with Run("rag_validation", "labelled", parameters={}) as run:
        judged = lt.judge_labelled_texts(run, "local/qwen2.5-coder-0.5b", 0, 1)
        assert (run.dir / "labelled_texts.jsonl").exists()
    rows = lt.labelled_text_cards(judged, "local/qwen2.5-coder-0.5b")
    assert [r["metric"] for r in rows] == ["answer relevance (06, labelled texts)", "faithfulness (06, labelled texts)"]
    for row in rows:
        assert row["n_judged"] + row["parse_failures"] == 2
        assert row["n_labelled"] == row["n_judged"] and (row["n_judged"] == 0 or row["base_rate"] == 0.5)
        assert row["labellers_n"] == row["n_labelled"]  # every shipped text has a second label
