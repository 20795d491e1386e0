"""Retrieval metrics against values worked out by hand."""

import math

import pytest
from lclab.retrieval.metrics import (
    f1_at_k,
    hit_rate_at_k,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    scores_at,
)

# Ranked: a b c d e; relevant: b d x (x never retrieved).
RANKED, RELEVANT = ["a", "b", "c", "d", "e"], {"b", "d", "x"}


@pytest.mark.parametrize("k, recall, precision", [
    (1, 0 / 3, 0 / 1),
    (2, 1 / 3, 1 / 2),
    (4, 2 / 3, 2 / 4),
    (5, 2 / 3, 2 / 5),
])
def test_recall_and_precision_by_hand(k, recall, precision):
    assert recall_at_k(RANKED, RELEVANT, k) == pytest.approx(recall)
    assert precision_at_k(RANKED, RELEVANT, k) == pytest.approx(precision)


def test_f1_is_the_harmonic_mean():
    # k=4: p = 1/2, r = 2/3 -> 2pr/(p+r) = (2/3)/(7/6) = 4/7
    assert f1_at_k(RANKED, RELEVANT, 4) == pytest.approx(4 / 7)
    assert f1_at_k(RANKED, RELEVANT, 1) == 0.0  # p = r = 0


def test_the_seed_multi_chunk_setting():
    # Three reference chunks, k = 3, two of them found: p = r = F1 = 2/3.
    got = ["r1", "n1", "r3"]
    for fn in (precision_at_k, recall_at_k, f1_at_k):
        assert fn(got, {"r1", "r2", "r3"}, 3) == pytest.approx(2 / 3)


def test_single_reference_chunk_gives_all_or_nothing_recall():
    assert recall_at_k(["a", "gold"], {"gold"}, 1) == 0.0
    assert recall_at_k(["a", "gold"], {"gold"}, 2) == 1.0
    assert precision_at_k(["gold"], {"gold"}, 1) == 1.0


def test_hit_rate_and_reciprocal_rank():
    assert hit_rate_at_k(RANKED, RELEVANT, 1) == 0.0
    assert hit_rate_at_k(RANKED, RELEVANT, 2) == 1.0
    assert reciprocal_rank(RANKED, RELEVANT, 5) == pytest.approx(1 / 2)
    assert reciprocal_rank(RANKED, RELEVANT, 1) == 0.0  # the first relevant is at rank 2 > k


def test_ndcg_by_hand():
    # k=5: DCG = 1/log2(3) + 1/log2(5); ideal (3 relevant, k=5) = 1 + 1/log2(3) + 1/2.
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 1 / 2
    assert ndcg_at_k(RANKED, RELEVANT, 5) == pytest.approx(dcg / ideal)
    assert ndcg_at_k(["b", "d", "x"], RELEVANT, 3) == pytest.approx(1.0)


def test_k_larger_than_retrieved_keeps_k_as_the_denominator():
    assert precision_at_k(["b"], RELEVANT, 10) == pytest.approx(1 / 10)
    assert recall_at_k(["b"], RELEVANT, 10) == pytest.approx(1 / 3)
    # nDCG's ideal ranking is capped by the relevant count, not by what was retrieved.
    assert ndcg_at_k(["b"], {"b"}, 10) == pytest.approx(1.0)


def test_nothing_retrieved_scores_zero_not_undefined():
    assert recall_at_k([], RELEVANT, 3) == 0.0
    assert precision_at_k([], RELEVANT, 3) == 0.0
    assert reciprocal_rank([], RELEVANT, 3) == 0.0


def test_no_relevant_chunk_is_undefined_not_zero():
    for fn in (recall_at_k, precision_at_k, f1_at_k, hit_rate_at_k, reciprocal_rank, ndcg_at_k):
        assert fn(RANKED, set(), 3) is None
    rows = scores_at(RANKED, [], [1, 3])
    assert all(v is None for row in rows for name, v in row.items() if name != "k")


def test_duplicates_count_once_at_their_first_rank():
    # "b b b" is one relevant chunk, not three; the k slots go to distinct chunks.
    assert precision_at_k(["b", "b", "b"], RELEVANT, 3) == pytest.approx(1 / 3)
    assert recall_at_k(["b", "b", "d"], RELEVANT, 2) == pytest.approx(2 / 3)
    assert reciprocal_rank(["a", "a", "b"], RELEVANT, 2) == pytest.approx(1 / 2)


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_k_must_be_a_positive_integer(k):
    with pytest.raises(ValueError, match="positive integer"):
        recall_at_k(RANKED, RELEVANT, k)
