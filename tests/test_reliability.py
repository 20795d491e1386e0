"""The reliability card on planted data: every number is the one computed by hand."""

import math

import pandas as pd
import pytest
from lclab.scoring.baselines import content_overlap, content_words
from lclab.scoring.reliability import Replies, card, label_key


def test_a_card_on_planted_verdicts_labels_and_baseline():
    verdicts = pd.Series([True, True, True, True, False, False, False, False, True, False, None])
    probabilities = pd.Series([0.9, 0.8, 0.7, 0.6, 0.4, 0.3, 0.2, 0.6, 0.95, 0.1, None])
    labels = pd.Series([1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1], dtype=float)
    sources = pd.Series(["logprobs"] * 9 + ["sampled", None])
    baseline = pd.Series([1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.5])
    row = card("planted", "judge", Replies(verdicts, probabilities, sources), labels, "words", baseline)
    assert (row["n_judged"], row["parse_failures"], row["sampled_fallback"], row["n_labelled"]) == (10, 1, 1, 10)
    assert row["base_rate"] == pytest.approx(0.5) and row["agreement"] == pytest.approx(0.8)
    assert row["kappa"] == pytest.approx(0.6)  # both say yes half the time: (0.8 - 0.5) / 0.5
    # AUC: of 25 (positive, negative) pairs, the judge's probability orders all but one (0.6 vs 0.6: a tie).
    assert row["auc"] == pytest.approx(24.5 / 25)
    # Baseline votes (>= 0.5): [1,0,1,0,0,0,1,1,1,0] against labels [1,1,1,0,0,0,0,1,1,0]: 8 of 10 agree.
    assert row["baseline_agreement"] == pytest.approx(0.8)
    # Judge [1,1,1,1,0,0,0,0,1,0] against those votes: positions 0, 2, 4, 5, 8, 9 agree.
    assert row["judge_vs_baseline"] == pytest.approx(6 / 10)
    # A 0.98 vs 0.80 lead on 10 texts: the paired interval holds 0, so the card says "ties", not "beats".
    assert "too few" not in row["reading"] and "ties with its judge-free baseline" in row["reading"]
    assert row["versus_baseline"] == "ties with" and row["auc_vs_baseline_lo"] < 0 < row["auc_vs_baseline_hi"]


def test_a_cards_intervals_resample_the_items_clusters_where_it_has_them():
    import numpy as np
    from lclab.scoring.score_eval import paired_auc_difference
    from lclab.stats import kappa_with_ci
    from lclab.stats.card import cluster_auc_ci

    rng = np.random.default_rng(5)
    labels = pd.Series(rng.integers(0, 2, 40), dtype=float)
    p = pd.Series(np.clip(labels * 0.4 + rng.random(40) * 0.6, 0, 1))
    verdicts, baseline = p >= 0.5, pd.Series(rng.random(40))
    units = pd.Series(np.repeat([f"qa{i}" for i in range(10)], 4))  # four answers to each of ten QA pairs
    row = card("clustered", "judge", Replies(verdicts, p, pd.Series(["logprobs"] * 40)), labels, "words", baseline,
               clusters=units)
    assert (row["kappa_lo"], row["kappa_hi"]) == pytest.approx(tuple(
        kappa_with_ci(verdicts.astype(int), labels.astype(int), units).values())[2:])
    assert (row["auc_lo"], row["auc_hi"]) == pytest.approx(cluster_auc_ci(labels.to_numpy(int), p.to_numpy(), units))
    diff = paired_auc_difference(labels, p, baseline, clusters=units)
    assert (row["auc_vs_baseline_lo"], row["auc_vs_baseline_hi"]) == (diff["difference_lo"], diff["difference_hi"])
    items = card("clustered", "judge", Replies(verdicts, p, pd.Series(["logprobs"] * 40)), labels, "words", baseline)
    assert (items["kappa_lo"], items["auc_lo"]) != (row["kappa_lo"], row["auc_lo"])  # without them: the items


def test_without_labels_the_card_says_so_instead_of_printing_numbers():
    row = card("unlabelled", "judge", Replies(pd.Series([True, False]), pd.Series([0.9, 0.1]), pd.Series(["logprobs"] * 2)),
               pd.Series([math.nan, math.nan]), "words", pd.Series([1.0, 0.0]))
    assert row["n_labelled"] == 0 and math.isnan(row["kappa"]) and math.isnan(row["auc"])
    assert row["reading"].startswith("no labels for this run's items")


def test_a_judge_that_does_not_beat_its_baseline_says_so():
    labels = pd.Series([1, 1, 0, 0] * 3, dtype=float)
    replies = Replies(pd.Series([True, False, True, False] * 3), pd.Series([0.6, 0.4, 0.6, 0.4] * 3),
                      pd.Series(["logprobs"] * 12))
    row = card("weak", "judge", replies, labels, "words", pd.Series([1.0, 1.0, 0.0, 0.0] * 3))
    assert row["auc"] == pytest.approx(0.5) and row["baseline_auc"] == pytest.approx(1.0)
    assert "loses to its judge-free baseline on AUC (0.50 vs 1.00" in row["reading"]


def test_the_label_key_ignores_white_space_only():
    assert label_key("Q?", "an  answer\n") == label_key("Q?", "an answer")
    assert label_key("Q?", "an answer") != label_key("Q?", "another answer")


def test_content_word_overlap_lemmatizes_and_skips_function_words():
    assert content_words("The towers were finished in 1889.") == {"tower", "finish", "1889"}
    assert content_overlap("The tower was finished in 1889.", "It was finished, the tower, in 1889!") == 1.0
    assert content_overlap("The tower is red.", "The tower is blue.") == pytest.approx(0.5)
    assert content_overlap("The and of.", "anything") is None  # no content words: no score, not 0
    assert content_overlap("Opłaty skarbowej nie pobiera się.", "Opłata skarbowa nie jest pobierana.",
                           "polish") == pytest.approx(1.0)


def test_a_judge_beats_its_baseline_only_when_the_paired_interval_excludes_0():
    labels = pd.Series([1, 0] * 30, dtype=float)
    judge = pd.Series([0.9, 0.1] * 30)  # orders every pair right
    baseline = pd.Series([1.0, 1.0, 0.0, 0.0] * 15)  # right half of the time
    row = card("strong", "judge", Replies(judge >= 0.5, judge, pd.Series(["logprobs"] * 60)), labels, "words",
               baseline)
    assert row["versus_baseline"] == "beats" and row["auc_vs_baseline_lo"] > 0
    assert "the judge beats its judge-free baseline on AUC (1.00 vs 0.50" in row["reading"]
