"""A judged rate corrected by labels (lclab.stats.corrected): PPI++ covers the true rate, the raw judge rate does
not; Rogan–Gladen on hand-computed cases. Simulated, no model."""

import math

import numpy as np
import pytest
from lclab.stats.corrected import corrected_rate, rogan_gladen

TRUE_RATE, SENSITIVITY, SPECIFICITY = 0.60, 0.80, 0.90  # the judge's rate is then 0.6 x 0.8 + 0.4 x 0.1 = 0.52


def judged_run(rng, n_items: int, n_labels: int, rate=TRUE_RATE, sens=SENSITIVITY, spec=SPECIFICITY):
    """Verdicts on every item, labels (the truth) on a random subset, NaN elsewhere."""
    truth = rng.random(n_items) < rate
    verdicts = np.where(truth, rng.random(n_items) < sens, rng.random(n_items) >= spec).astype(float)
    labels = np.full(n_items, np.nan)
    drawn = rng.choice(n_items, n_labels, replace=False)
    labels[drawn] = truth[drawn]
    return verdicts, labels


def test_rogan_gladen_undoes_a_known_sensitivity_and_specificity():
    assert rogan_gladen(0.52, 0.8, 0.9) == pytest.approx(0.60)
    assert rogan_gladen(0.05, 0.8, 0.9) == 0.0  # below the false-positive floor: clipped, not negative
    assert math.isnan(rogan_gladen(0.5, 0.5, 0.5))  # a judge no better than chance corrects nothing


@pytest.mark.parametrize("n_labels", [30, 60, 120])
def test_the_ppi_interval_covers_the_true_rate_and_the_raw_rate_does_not(n_labels):
    rng = np.random.default_rng(n_labels)
    replications, covered, raw_covered = 1000, 0, 0
    for _ in range(replications):
        verdicts, labels = judged_run(rng, 600, n_labels)
        # The raw and PPI++ intervals only (the Rogan–Gladen bootstrap is checked below, at fewer replications).
        row = corrected_rate(verdicts, labels, bootstrap_rg=False)
        covered += row["ppi_lo"] <= TRUE_RATE <= row["ppi_hi"]
        raw_covered += row["raw_lo"] <= TRUE_RATE <= row["raw_hi"]
    # 1,000 replications: the coverage's standard error is about 0.7 pp; the band is 95 ± 3 pp. (At 30
    # labels the interval covers about 93 %: 2,000 replications in docs/trusting-the-numbers.md.)
    assert abs(covered / replications - 0.95) <= 0.03, covered / replications
    assert raw_covered / replications < 0.05  # the judge's own rate is 0.52: its interval misses 0.60


def test_rogan_gladen_and_ppi_agree_with_the_truth_on_a_large_labelled_run():
    rng = np.random.default_rng(7)
    verdicts, labels = judged_run(rng, 10_000, 2_000)
    row = corrected_rate(verdicts, labels)
    assert row["raw"] == pytest.approx(0.52, abs=0.02)
    for name in ("rogan_gladen", "ppi", "labels_only"):  # 2,000 labels: standard errors about 0.012
        assert row[name] == pytest.approx(TRUE_RATE, abs=0.04), (name, row)
        assert row[f"{name}_lo"] < row[name] < row[f"{name}_hi"]
    assert row["ppi_hi"] - row["ppi_lo"] < row["labels_only_hi"] - row["labels_only_lo"]  # the judge helps
    assert row["sensitivity"] == pytest.approx(SENSITIVITY, abs=0.06)


def test_clustered_items_are_resampled_by_cluster_and_few_labels_give_no_correction():
    rng = np.random.default_rng(3)
    verdicts, labels = judged_run(rng, 300, 60)
    clusters = np.repeat(np.arange(60), 5)
    row = corrected_rate(verdicts, labels, clusters)
    assert row["n_clusters"] == 60 and row["ppi_lo"] < row["ppi"] < row["ppi_hi"]
    few = corrected_rate(verdicts, np.where(np.arange(300) < 5, labels, np.nan))
    assert math.isnan(few["ppi"]) and math.isnan(few["rogan_gladen"]) and few["n_labelled"] <= 5


def test_a_card_with_nothing_judged_says_so_instead_of_failing():
    import pandas as pd
    from lclab.scoring.reliability import Replies, card

    empty = pd.Series([None, None], dtype=object)
    row = card("answer correct", "judge", Replies(empty, pd.Series([None, None], dtype=float), empty),
               pd.Series([float("nan")] * 2), "baseline", pd.Series([0.1, 0.2]))
    assert row["n_judged"] == 0 and row["reading"] == "nothing judged: no verdict to read"
    assert math.isnan(row["ppi"]) and row["headline_estimate"] == "none (nothing judged)"


def test_two_runs_judged_by_one_judge_are_compared_by_their_corrected_difference(monkeypatch):
    """Run a truly at 0.60, run b at 0.45 on the same 200 items (40 clusters of 5); the judge (0.80/0.90) shrinks
    the difference to about 0.105. The PPI++ difference, paired by cluster, covers the true 0.15."""
    from lclab.stats import corrected

    monkeypatch.setattr(corrected, "N_BOOT", 300)  # the interval's bootstrap, kept short for 100 replications
    rng = np.random.default_rng(7)
    clusters = np.repeat(np.arange(40), 5)
    covered, raw = 0, []
    for _ in range(100):
        va, ya = judged_run(rng, 200, 60, rate=0.60)
        vb, yb = judged_run(rng, 200, 60, rate=0.45)
        got = corrected.corrected_difference(va, ya, vb, yb, clusters, seed=int(rng.integers(1 << 30)))
        covered += got["corrected_lo"] <= 0.15 <= got["corrected_hi"]
        raw.append(got["raw_difference"])
    assert 0.88 <= covered / 100 <= 1.0
    assert np.mean(raw) == pytest.approx(0.15 * (SENSITIVITY + SPECIFICITY - 1), abs=0.02)  # the judge's shrinkage
    few = corrected.corrected_difference(va, np.where(np.arange(200) < 5, ya, np.nan), vb, yb, clusters)
    assert math.isnan(few["corrected"]) and few["n_labelled_a"] <= 5  # too few labels: said, not guessed
