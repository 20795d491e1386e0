"""ROC AUC, accuracy and calibration against manual labels, checked on hand-computed cases."""

import math

import numpy as np
import pytest
from lclab.scoring.score_eval import bootstrap_auc_ci, calibration_table, roc_auc, separation_summary
from lclab.stats import wilson_interval
from sklearn.metrics import roc_auc_score


def test_auc_counts_correctly_ordered_pairs():
    # pairs (pos, neg): (0.9, 0.5) ok, (0.9, 0.1) ok, (0.4, 0.5) wrong, (0.4, 0.1) ok -> 3/4
    assert roc_auc([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]) == pytest.approx(0.75)


def test_tied_scores_count_one_half():
    assert roc_auc([1, 0], [0.5, 0.5]) == pytest.approx(0.5)
    assert roc_auc([1, 1, 0], [1, 0, 0]) == pytest.approx(0.75)  # a sampled 0/1 scorer has ties


def test_auc_agrees_with_scikit_learn_on_random_scores_with_ties():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 60)
    scores = rng.integers(0, 5, 60) / 4  # few distinct values: many ties
    assert roc_auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores))


def test_auc_with_one_class_is_undefined_not_one_half():
    assert math.isnan(roc_auc([1, 1], [0.2, 0.9]))
    assert all(math.isnan(v) for v in bootstrap_auc_ci([0, 0], [0.2, 0.9]))


def test_missing_scores_are_left_out_and_counted_never_scored_as_zero():
    summary = separation_summary([1, 0, 1], [0.9, 0.1, None])
    assert summary["auc"] == 1.0 and summary["n"] == 2 and summary["unscored"] == 1
    assert summary["accuracy"] == 1.0  # a None read as 0 would have made it 2/3


def test_accuracy_at_the_threshold_and_its_interval():
    summary = separation_summary([1, 1, 0, 0], [0.5, 0.49, 0.2, 0.7])  # 0.5 counts as positive
    assert summary["accuracy"] == pytest.approx(0.5)
    assert 0 < summary["accuracy_lo"] < 0.5 < summary["accuracy_hi"] < 1
    assert (summary["positives"], summary["negatives"]) == (2, 2)


def test_given_clusters_the_accuracy_interval_is_over_clusters_not_points():
    # four questions of two points each, right or wrong together: 6 of 8 points, 3 of 4 questions
    labels, scores = [1, 0, 1, 0, 1, 0, 1, 0], [0.9, 0.1, 0.9, 0.1, 0.1, 0.9, 0.9, 0.1]
    questions = ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"]
    points = separation_summary(labels, scores)
    clustered = separation_summary(labels, scores, clusters=questions)
    assert points["accuracy"] == clustered["accuracy"] == pytest.approx(0.75)
    assert (points["accuracy_lo"], points["accuracy_hi"]) == pytest.approx(wilson_interval(6, 8))
    # four units, not eight: wider than Wilson's over the points
    assert clustered["accuracy_lo"] < points["accuracy_lo"] and clustered["accuracy_hi"] > points["accuracy_hi"]
    one = separation_summary(labels[:2], scores[:2], clusters=questions[:2])
    assert one["accuracy"] == 1.0 and math.isnan(one["accuracy_lo"]) and math.isnan(one["accuracy_hi"])


def test_bootstrap_interval_brackets_the_estimate_and_is_seeded():
    rng = np.random.default_rng(0)
    labels = [1] * 12 + [0] * 16
    scores = list(rng.uniform(0.3, 1.0, 12)) + list(rng.uniform(0.0, 0.7, 16))
    lo, hi = bootstrap_auc_ci(labels, scores)
    assert 0 <= lo <= roc_auc(labels, scores) <= hi <= 1
    assert (lo, hi) == bootstrap_auc_ci(labels, scores)
    assert bootstrap_auc_ci([1, 1, 0], [0.9, 0.8, 0.1]) == (1.0, 1.0)  # perfect separation in every replicate


def test_calibration_bins_compare_mean_score_with_the_observed_share():
    table = calibration_table([0, 0, 1, 1, 1], [0.05, 0.15, 0.9, 1.0, 0.1], n_bins=5).set_index("bin")
    assert list(table.index) == ["[0.0, 0.2)", "[0.8, 1.0]"]  # empty bins left out; 1.0 is in the last bin
    low = table.loc["[0.0, 0.2)"]
    assert (low["n"], low["mean_score"], low["observed"]) == (3, pytest.approx(0.1), pytest.approx(1 / 3))
    assert table.loc["[0.8, 1.0]", "observed"] == 1.0


def test_labels_must_be_binary_and_lengths_must_match():
    with pytest.raises(ValueError, match="0 or 1"):
        roc_auc([1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="2 labels but 3 scores"):
        roc_auc([1, 0], [0.1, 0.2, 0.3])
