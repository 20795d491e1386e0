"""The judge as an instrument: who judges by default, its card on labelled texts, rates corrected with clusters
(PPI++ by a cluster bootstrap-t, Rogan–Gladen by the card). Simulated or hand-computed; no model."""

import math

import numpy as np
import pandas as pd
import pytest
from lclab.models.judge_choice import STRONGEST_EMBEDDED, choose_judge
from lclab.stats.card import card_corrected_difference, card_corrected_rate, card_statistics
from lclab.stats.cluster_ppi import cluster_ppi

TRUE_RATE, SENS, SPEC, ICC = 0.60, 0.80, 0.90, 0.3


def test_the_default_judge_is_never_the_model_under_test_where_a_stronger_one_is_embedded():
    small = choose_judge("local/qwen2.5-coder-0.5b", "")
    assert small.spec == STRONGEST_EMBEDDED and not small.self_judged
    served = choose_judge("openai/qwen@http://127.0.0.1:8080/v1", "")
    assert served.spec == STRONGEST_EMBEDDED and not served.self_judged
    own_file = choose_judge("local/models/mine.gguf", "")
    assert own_file.spec == STRONGEST_EMBEDDED
    strongest = choose_judge(STRONGEST_EMBEDDED, "")
    assert strongest.spec == STRONGEST_EMBEDDED and strongest.self_judged
    assert strongest.label.endswith("(self-judged)")
    named = choose_judge("local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-0.5b")
    assert named.self_judged and named.label == "local/qwen2.5-coder-0.5b (self-judged)"
    assert not choose_judge("local/qwen2.5-coder-0.5b", "openai/gpt-4o-mini").self_judged


def clustered_run(rng, k: int, m: int, n_labels: int):
    """k clusters of m items, each cluster's true rate drawn from a Beta with mean TRUE_RATE and intra-cluster
    correlation ICC; a 0.80/0.90 judge on every item; labels on a random n_labels of them."""
    ab = 1 / ICC - 1
    p = rng.beta(TRUE_RATE * ab, (1 - TRUE_RATE) * ab, size=k)
    clusters = np.repeat(np.arange(k), m)
    truth = (rng.random(k * m) < p[clusters]).astype(float)
    verdicts = np.where(truth == 1, rng.random(k * m) < SENS, rng.random(k * m) >= SPEC).astype(float)
    labels = np.full(k * m, np.nan)
    drawn = rng.choice(k * m, n_labels, replace=False)
    labels[drawn] = truth[drawn]
    return labels, verdicts, clusters


def test_cluster_ppi_is_ppi_pythons_point_estimate_with_an_interval():
    from ppi_py import ppi_mean_pointestimate

    labels, verdicts, clusters = clustered_run(np.random.default_rng(1), 14, 5, 30)
    got = cluster_ppi(labels, verdicts, clusters)
    known = ~np.isnan(labels)
    expected = float(np.ravel(ppi_mean_pointestimate(labels[known], verdicts[known], verdicts[~known]))[0])
    assert got["ppi"] == pytest.approx(expected) and got["lo"] < got["ppi"] < got["hi"]
    # and by hand, from PPI++'s definition for a mean (Angelopoulos, Duchi, Zrnic 2023): λ = Cov(Y, f) over the
    # labelled items / ((1 + n/N) Var(f) over all items), clipped to [0, 1]; θ = λ·mean(f unlabelled) +
    # mean(Y − λ f labelled)
    y, f_lab, f_unl = labels[known], verdicts[known], verdicts[~known]
    n, big_n = len(y), len(f_unl)
    lam = np.clip(np.cov(y, f_lab, bias=True)[0, 1] / ((1 + n / big_n) * np.var(verdicts, ddof=1)), 0, 1)
    assert got["lam"] == pytest.approx(lam)
    assert got["ppi"] == pytest.approx(lam * f_unl.mean() + (y - lam * f_lab).mean())
    assert got["n_labelled"] == 30 and got["n_clusters"] == 14 and 0 <= got["lam"] <= 1
    few = cluster_ppi(np.where(np.arange(70) == 0, labels, np.nan), verdicts, clusters)
    assert math.isnan(few["ppi"])  # one label: no estimate, never a guess


@pytest.mark.parametrize("k,n_labels", [(8, 30), (14, 30), (14, 60), (30, 30), (30, 60)])
def test_the_clustered_ppi_interval_holds_its_level(k, n_labels):
    """The issue's design: clusters of 5, intra-cluster correlation 0.3, a 0.80/0.90 judge, 30 or 60 random
    labels. 1,500 replications (coverage's standard error about 0.55 pp; fixed seeds, so the result is the same
    every run); 500 resamples each, the lab uses 2,000 (the interval is the same method, its quantile a little
    noisier). The band is the issue's: 95 ± 2 %."""
    rng = np.random.default_rng(k * 100 + n_labels)
    replications, covered = 1500, 0
    for r in range(replications):
        labels, verdicts, clusters = clustered_run(rng, k, 5, n_labels)
        got = cluster_ppi(labels, verdicts, clusters, n_boot=500, seed=r)
        covered += got["lo"] <= TRUE_RATE <= got["hi"]
    assert abs(covered / replications - 0.95) <= 0.02, covered / replications


def planted_card(rng, n_clusters: int, per_cluster: int, sens: float, spec: float, base: float = 0.55):
    clusters = np.repeat(np.arange(n_clusters), per_cluster)
    labels = (rng.random(len(clusters)) < base).astype(int)
    verdicts = np.where(labels == 1, rng.random(len(labels)) < sens, rng.random(len(labels)) >= spec).astype(float)
    probabilities = np.clip(verdicts * 0.7 + rng.random(len(labels)) * 0.3, 0, 1)
    return card_statistics(labels, verdicts, probabilities, clusters)


def test_a_card_reads_sensitivity_specificity_and_whether_the_judge_can_tell():
    labels = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    verdicts = np.array([1, 1, 1, 0, 0, 0, 0, 1.0])
    card = card_statistics(labels, verdicts, verdicts, ["a", "a", "b", "b", "c", "c", "d", "d"])
    assert card["sensitivity"] == 0.75 and card["specificity"] == 0.75 and card["youden"] == pytest.approx(0.5)
    assert card["n"] == 8 and card["n_clusters"] == 4
    good = planted_card(np.random.default_rng(0), 40, 3, 0.9, 0.85)
    assert good["informative"] and good["auc_lo"] > 0.5 and good["youden_lo"] > 0
    chance = planted_card(np.random.default_rng(0), 40, 3, 0.9, 0.12)  # calls nearly everything right
    assert not chance["informative"] and chance["youden_lo"] <= 0
    unread = card_statistics([1, 0, 1], [1.0, None, 0.0], [0.9, None, 0.2], ["a", "b", "c"])
    assert unread["unscored"] == 1 and unread["n"] == 2  # a text with no verdict is counted, never a "no"


def test_the_card_corrected_rate_undoes_a_known_judge_and_is_defined_where_the_card_is_informative():
    rng = np.random.default_rng(5)
    card = planted_card(rng, 60, 2, SENS, SPEC)
    judged = np.where(rng.random(4000) < TRUE_RATE, rng.random(4000) < SENS, rng.random(4000) >= SPEC)
    got = card_corrected_rate(judged.astype(float), np.repeat(np.arange(800), 5), card)
    expected = (judged.mean() + card["specificity"] - 1) / card["youden"]
    assert got["corrected"] == pytest.approx(expected) and got["corrected_lo"] < expected < got["corrected_hi"]
    assert math.isnan(card_corrected_rate([1.0, 0.0], ["a", "b"], {**card, "informative": False})["corrected"])


def test_the_card_corrected_interval_is_defined_in_nearly_every_run_where_the_card_is_informative():
    """A 0.80/0.90 judge, a card of 40 texts in 20 clusters, runs of 14 clusters of 5: of the runs whose card
    is informative, the Rogan–Gladen interval is defined in at least 95 % (the issue's bound) and covers the
    truth near its level (it assumes the card's texts are like the run's, as they are here)."""
    rng = np.random.default_rng(11)
    informative = defined = covered = 0
    for _ in range(400):
        card = planted_card(rng, 20, 2, SENS, SPEC)
        _, verdicts, clusters = clustered_run(rng, 14, 5, 0)
        if not card["informative"]:
            continue
        informative += 1
        got = card_corrected_rate(verdicts, clusters, card)
        if got["corrected_lo"] == got["corrected_lo"]:
            defined += 1
            covered += got["corrected_lo"] <= TRUE_RATE <= got["corrected_hi"]
    assert informative > 300 and defined / informative >= 0.95
    assert covered / defined >= 0.90, covered / defined


def test_a_difference_of_judged_rates_is_divided_by_the_cards_j():
    card = planted_card(np.random.default_rng(2), 60, 3, 0.8, 0.9)
    got = card_corrected_difference(0.105, 0.04, 13, card)
    assert got["corrected"] == pytest.approx(0.105 / card["youden"])
    assert got["corrected_lo"] < got["corrected"] < got["corrected_hi"]
    assert math.isnan(card_corrected_difference(0.1, 0.04, 13, {**card, "informative": False})["corrected"])


def test_a_judge_that_ranks_well_below_one_half_is_read_at_a_cross_validated_threshold():
    """The issue's case: every probability under 0.5 (the 0.5 cut calls every text negative, J = 0), but the
    positives above the negatives. The card reads each fold of clusters at the cut chosen on the others: J near 1,
    informative, and the threshold a run reads at lies between the classes."""
    rng = np.random.default_rng(3)
    labels = np.tile([1, 0], 30)
    probabilities = np.where(labels == 1, rng.uniform(0.30, 0.45, 60), rng.uniform(0.05, 0.20, 60))
    clusters = np.repeat(np.arange(20), 3)
    card = card_statistics(labels, probabilities >= 0.5, probabilities, clusters)
    assert card["youden"] == 1.0 and card["informative"] and card["threshold_folds"] == 5
    assert probabilities[labels == 0].max() < card["threshold"] <= probabilities[labels == 1].min()
    # A probability that carries nothing: J's interval holds 0 at any cut the folds choose.
    noise = card_statistics(labels, rng.random(60) >= 0.5, rng.random(60), clusters)
    assert not noise["informative"] and noise["youden_lo"] <= 0


def test_a_fold_is_never_read_at_a_cut_chosen_on_its_own_texts():
    """Two clusters whose positives sit below the others' negatives: read on their own texts the cut would
    separate every text (J = 1); chosen on the other clusters, the cut misreads them, and the card says so."""
    from lclab.stats.card import cross_validated_verdicts, youden_threshold

    labels = np.array([1, 0] * 10)
    probabilities = np.array([0.9, 0.6] * 8 + [0.5, 0.1] * 2)  # the last two clusters' positive at 0.5 < 0.6
    clusters = np.repeat(np.arange(10), 2)
    verdicts, folds = cross_validated_verdicts(labels, probabilities, clusters)
    assert folds == 5 and youden_threshold(labels[16:], probabilities[16:]) <= 0.5
    assert verdicts[16:].tolist() == [0, 0, 0, 0]  # those positives read at the others' cut (above 0.6)
    assert card_statistics(labels, verdicts, probabilities, clusters)["sensitivity"] == 0.8


def test_a_run_reads_its_verdicts_at_the_cards_threshold_and_ppi_from_the_probability():
    from lclab.models.judge_choice import Judge
    from lclab.scoring.judge_reading import Reading

    judge = Judge("local/qwen2.5-coder-1.5b", False, "named")
    reading = Reading("answer_correct", judge, {"threshold": 0.3, "informative": True})
    items = pd.DataFrame({"judge_correct": [True, False, False, None], "judge_correct_p": [0.9, 0.35, 0.1, None]})
    read = reading.read_items(items, "judge_correct")
    assert read["judge_correct"].tolist() == [True, True, False, None]
    assert read["judge_correct_at_0.5"].tolist() == [True, False, False, None]
    rng = np.random.default_rng(1)
    p = rng.random(40)
    labels = np.where(np.arange(40) < 20, (rng.random(40) < p).astype(float), np.nan)
    clusters = np.repeat(np.arange(10), 4)
    got = reading.rate(p >= 0.3, clusters, labels, p)
    assert got["estimate"] == pytest.approx(cluster_ppi(labels, p, clusters)["ppi"])
    assert "probability" in got["read_as"]
