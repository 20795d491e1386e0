"""The label files can carry κ, a second labeller gives the judge its ceiling, and 06's judge reads labelled
texts of both classes."""

import math

import pandas as pd
import pytest
from lclab.scoring.labellers import SECOND, labeller_agreement
from lclab.scoring.labels import LABELS, label_key, load_labels
from lclab.scoring.reliability import Replies, card
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


def test_the_labellers_kappa_resamples_the_texts_clusters_where_given():
    from lclab.stats import kappa_with_ci

    first = pd.read_csv(LABELS / "rag_faithfulness.csv", dtype=str).set_index("key")["label"].astype(int)
    second = pd.read_csv(SECOND / "rag_faithfulness.csv", dtype=str).set_index("key")["label"].astype(int)
    both = first.index.intersection(second.index)
    units = pd.Series([f"qa{i // 3}" for i in range(len(both))], index=both)  # three texts per QA pair
    got = labeller_agreement("rag_faithfulness", both, units)
    expected = kappa_with_ci(first[both].to_numpy(), second[both].to_numpy(), units.to_numpy())
    assert (got["labellers_kappa_lo"], got["labellers_kappa_hi"]) == (expected["kappa_lo"], expected["kappa_hi"])
    assert got["labellers_kappa_lo"] != labeller_agreement("rag_faithfulness", both)["labellers_kappa_lo"]


def test_a_card_prints_the_labellers_kappa_beside_the_judges():
    verdicts = pd.Series([True, False] * 10)
    ceiling = {"labellers_n": 20, "labellers_kappa": 0.8, "labellers_kappa_lo": 0.6, "labellers_kappa_hi": 0.95}
    row = card("planted", "judge", Replies(verdicts, verdicts.astype(float), pd.Series(["logprobs"] * 20)),
               pd.Series([1, 0] * 10, dtype=float), "words", pd.Series([0.5] * 20), labellers=ceiling)
    assert row["labellers_kappa"] == 0.8 and row["kappa"] == pytest.approx(1.0)
    assert "two labellers agree at κ 0.80 [0.60, 0.95] on 20 of these texts" in row["reading"]


def test_without_a_second_labeller_the_ceiling_is_left_empty():
    got = labeller_agreement("answer_correct")
    assert got["labellers_n"] == 0 and math.isnan(got["labellers_kappa"])


def test_a_judge_card_reads_the_shipped_texts_once_per_judge_and_keeps_its_verdicts(monkeypatch, tmp_path):
    """A judge reads a few shipped texts of each kind (both classes); the card's verdicts are kept per judge, so
    the second card makes no call; a label changed later is read at once, without judging again. What is checked
    is the store, so the deterministic fake judge reads (lclab.models.fake); the real 0.5B reading shipped texts
    is test_shipped_cards.py's, and every smoke notebook's. The repo's shipped verdicts are left out."""
    from lclab.models import ACCOUNTING
    from lclab.scoring import judge_card as jc

    monkeypatch.setenv("LCLAB_SHIPPED_CARDS", str(tmp_path / "none-shipped"))
    judge = "fake/judge"
    cards = {}
    for kind in ("answer_correct", "rag_relevance", "claim_support"):
        cards[kind] = first = jc.judge_card(judge, kind, n_texts=6, progress=False)
        texts = jc.card_texts(kind, 6)
        assert first["n"] + first["unscored"] == len(texts) and set(texts["label"]) == {0, 1}
        assert first["kind"] == kind and first["line"].startswith(f"shipped card ({kind}")
        kept = jc.kept_verdicts(judge, kind)
        assert len(kept) == len(texts) and jc.store_path(judge, kind).exists()
    ACCOUNTING.reset()
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path / "empty-model-cache"))  # only the store left
    again = jc.judge_card(judge, "answer_correct", n_texts=6, progress=False)
    total = ACCOUNTING.table().set_index("stage").loc["total"]
    assert (total["calls"], total["cache_hits"]) == (0, 0)
    assert {k: again[k] for k in ("n", "auc", "sensitivity")} == pytest.approx(
        {k: cards["answer_correct"][k] for k in ("n", "auc", "sensitivity")}, nan_ok=True)
    texts = jc.card_texts("answer_correct", 6)
    monkeypatch.setattr(jc, "card_texts", lambda kind, n=None: texts.assign(label=1 - texts["label"]))
    inverted = jc.judge_card(judge, "answer_correct", n_texts=6, progress=False)
    assert inverted["base_rate"] == pytest.approx(1 - again["base_rate"])
    assert ACCOUNTING.table().set_index("stage").loc["total", "calls"] == 0


def test_two_judges_of_one_card_at_once_ask_each_prompt_once():
    """Two notebooks (or test workers) that need the same judge's card at the same moment: the second waits for the
    first's verdicts (a lock beside the store) instead of asking every prompt again, so the pair sends what one
    reader alone sends."""
    import threading

    from lclab.models import reset_backend_registry
    from lclab.models.fault_server import FaultServer
    from lclab.scoring import judge_card as jc

    def requests_for(judge: str, readers: int) -> tuple[int, list[dict]]:
        start, cards = threading.Barrier(readers), []

        def read_card():
            start.wait()
            cards.append(jc.judge_card(judge, "answer_correct", n_texts=6, progress=False))

        threads = [threading.Thread(target=read_card) for _ in range(readers)]
        before = len(server.requests)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return len(server.requests) - before, cards

    reset_backend_registry()
    with FaultServer(reply='{"correct": true}', delay=0.05) as server:
        alone, _ = requests_for(f"openai/alone@{server.base_url}", 1)
        together, cards = requests_for(f"openai/together@{server.base_url}", 2)
    reset_backend_registry()
    n = len(jc.card_texts("answer_correct", 6))
    assert len(cards) == 2 and all(c["n"] + c["unscored"] == n for c in cards)
    assert alone >= n and together == alone, (alone, together)


def test_every_shipped_correctness_label_is_carried_over_and_an_unanswerable_twin_is_keyed_apart():
    """Labels are keyed by answerability too (labels.row_key): each shipped answer_correct label still reads on
    its answerable text, none is dropped, and the same texts on an unanswerable item have a key of their own
    that no shipped label takes."""
    from lclab.scoring.labels import row_key
    from lclab.scoring.reliability import judged_card

    table = pd.read_csv(LABELS / "answer_correct.csv", dtype=str, keep_default_na=False)
    fields = ("question", "reference", "response")
    carried = [row_key(r, fields) == r["key"] for _, r in table.iterrows()]
    assert sum(carried) == len(table) > 0  # every shipped label, under the key it was filed with
    twins = [row_key({**r, "answerable": False}, fields) for _, r in table.iterrows()]
    assert not set(twins) & set(table["key"]) and len(set(twins)) == len(table)
    items = table.assign(judge_correct=True, answerable=True)
    for answerable, labelled in ((True, len(table)), (False, 0)):
        got = judged_card(items.assign(answerable=answerable), "judge_correct", "answer correct", "j",
                          "answer_correct", fields, "string match", lambda r: 1.0)
        assert got["n_labelled"] == labelled, (answerable, got["n_labelled"])
