import math

import pandas as pd
import pytest
from lclab.stats import proportion_summary, wilson_interval


def test_wilson_hand_computed():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 8)
    assert lo == 0.0 and hi == pytest.approx(0.3244, abs=1e-4)
    lo, hi = wilson_interval(8, 8)
    assert hi == 1.0 and lo == pytest.approx(0.6756, abs=1e-4)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_wilson_holds_its_point_at_every_count_and_agrees_with_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    for n in range(1, 80):
        for k in range(n + 1):
            lo, hi = wilson_interval(k, n)
            assert lo <= k / n <= hi, (k, n, lo, hi)  # 0 of 3 once gave lo = 5.6e-17 > 0, 10 of 10 hi < 1
            assert (lo == 0.0) == (k == 0) and (hi == 1.0) == (k == n), (k, n, lo, hi)
            ref = proportion_confint(k, n, method="wilson")
            assert lo == pytest.approx(ref[0], abs=1e-12) and hi == pytest.approx(ref[1], abs=1e-12)


def test_summary_counts_missing_separately():
    df = pd.DataFrame({"depth": [0, 0, 0, 50, 50], "ok": [True, False, None, True, True]})
    s = proportion_summary(df, ["depth"], "ok", "judge").set_index("depth")
    assert s.loc[0, "judge_n"] == 2 and s.loc[0, "judge_acc"] == 0.5 and s.loc[0, "judge_missing"] == 1
    assert s.loc[50, "judge_acc"] == 1.0 and s.loc[50, "judge_missing"] == 0


def test_a_failed_answer_is_counted_as_failed_not_as_an_unscored_verdict():
    df = pd.DataFrame({"depth": [0, 0, 0, 0], "ok": [True, None, None, False],
                       "response": ["Paris", None, "I think Lyon", "Rome"]})
    s = proportion_summary(df, ["depth"], "ok", "judge").iloc[0]
    assert (s["judge_n"], s["judge_missing"], s["judge_failed"]) == (2, 1, 1)


# -- planted data: every statistic gives the number computed by hand -----------------------------

from lclab.scoring.score_eval import expected_calibration_error  # noqa: E402
from lclab.stats import cohen_kappa, kappa_with_ci, mcnemar_exact, paired_effect, pairs_needed, power_line, sign_flip_p  # noqa: E402


def test_kappa_of_planted_raters():
    judge = [1, 1, 1, 1, 0, 0, 0, 0, 1, 0]
    labels = [1, 1, 1, 0, 0, 0, 0, 1, 1, 0]
    # agreement 0.8; both say 1 half the time, so chance agreement is 0.5: kappa = (0.8 - 0.5) / 0.5
    assert cohen_kappa(judge, labels) == pytest.approx(0.6)
    card = kappa_with_ci(judge, labels)
    assert card["agreement"] == pytest.approx(0.8) and card["kappa_lo"] <= 0.6 <= card["kappa_hi"]
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))  # no variation: kappa is undefined, not 1
    assert cohen_kappa([1, 0, 1, 0], [0, 1, 0, 1]) == pytest.approx(-1.0)


def test_kappas_interval_resamples_clusters_so_an_answer_judged_five_times_counts_once():
    import numpy as np

    rng = np.random.default_rng(3)
    judge = rng.integers(0, 2, 30)
    labels = np.where(rng.random(30) < 0.3, 1 - judge, judge)
    alone = kappa_with_ci(judge, labels)
    # the same 30 texts, each five times (one answer read at five depths): five rows, one unit
    repeated, units = np.repeat(judge, 5), np.repeat(np.arange(30), 5)
    as_items = kappa_with_ci(repeated, np.repeat(labels, 5))
    as_clusters = kappa_with_ci(repeated, np.repeat(labels, 5), clusters=units)
    width = lambda c: c["kappa_hi"] - c["kappa_lo"]  # noqa: E731
    assert as_items["kappa"] == as_clusters["kappa"] == pytest.approx(alone["kappa"])
    assert width(as_items) < 0.6 * width(alone)  # the rows as if independent: falsely narrow
    assert width(as_clusters) == pytest.approx(width(alone), rel=0.2)


def test_kappa_is_scikit_learns_on_random_raters_and_refuses_more_than_two_labels():
    import numpy as np
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(7)
    for n in (5, 12, 40, 200):
        for flip in (0.1, 0.4, 0.7):
            a = rng.integers(0, 2, n)
            b = np.where(rng.random(n) < flip, 1 - a, a)
            if a.min() < a.max() and b.min() < b.max():
                assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    with pytest.raises(ValueError, match="binary"):
        cohen_kappa([0, 1, 2], [0, 1, 1])


def test_exact_mcnemar_and_the_paired_binary_effect():
    a = [1, 1, 1, 1, 1, 0, 0, 0]
    b = [0, 0, 0, 0, 0, 0, 0, 0]
    assert mcnemar_exact(a, b) == pytest.approx(2 * 0.5 ** 5)  # 5 discordant pairs, all one way
    effect = paired_effect(a, b)
    # Each item its own cluster: the cluster-robust t is the textbook paired t test, interval and p alike.
    from scipy.stats import ttest_1samp

    textbook = ttest_1samp([x - y for x, y in zip(a, b)], 0.0)
    assert effect["effect"] == pytest.approx(5 / 8) and effect["p_value"] == pytest.approx(textbook.pvalue)
    low, high = textbook.confidence_interval()
    assert effect["n_pairs"] == 8 and (effect["effect_lo"], effect["effect_hi"]) == pytest.approx((low, high))
    assert mcnemar_exact([1, 0], [1, 0]) == 1.0
    with_gap = paired_effect([1, None, 0], [0, 1, 0])
    assert with_gap["n_pairs"] == 2 and with_gap["left_out"] == 1 and with_gap["effect"] == pytest.approx(0.5)


def test_sign_flip_permutation_test_and_a_constant_difference():
    assert sign_flip_p([1, 1, 1, 1]) == pytest.approx(2 / 16)  # 16 sign patterns, the two extremes
    assert sign_flip_p([0, 0, 0]) == 1.0
    # Three items all differing by 0.25: no spread to estimate, and a sign-flip over 3 can do no better than
    # p = 2/8, so there is no interval to give (not a zero-width one).
    effect = paired_effect([0.5, 0.5, 0.5], [0.25, 0.25, 0.25], binary=False)
    assert effect["effect"] == 0.25 and effect["p_value"] == pytest.approx(2 / 8)
    assert math.isnan(effect["effect_lo"]) and math.isnan(effect["effect_hi"])
    six = paired_effect([1] * 6, [0] * 6)  # six: p = 2/64 rejects, and the interval is the one value
    assert (six["effect_lo"], six["effect_hi"], six["p_value"]) == (1.0, 1.0, pytest.approx(2 / 64))


def test_pairs_needed_for_a_ten_point_effect():
    # SD of differences 0.5 -> standardized effect 0.2: a paired t-test needs 199 pairs at 80 % power
    assert pairs_needed(0.5) == 199
    assert pairs_needed(0.0) == 1 and math.isinf(pairs_needed(float("nan")))
    assert "about 199 QA pairs" in power_line(0.5, 8, "QA pairs") and "this run has 8" in power_line(0.5, 8, "QA pairs")
    assert "cannot be estimated" in power_line(0.0, 8, "QA pairs")  # not "needs about 1 QA pairs"


def test_expected_calibration_error_of_planted_scores():
    # two bins: scores 0.9 observed 1.0 and scores 0.1 observed 0.0 -> mean gap 0.1
    assert expected_calibration_error([1, 1, 0, 0], [0.9, 0.9, 0.1, 0.1]) == pytest.approx(0.1)
    assert expected_calibration_error([1, 0], [1.0, 0.0]) == pytest.approx(0.0)


def test_effective_length_is_the_longest_length_keeping_85_percent_of_the_shortest():
    from lclab.stats.effective_length import effective_length, effective_length_ci

    assert effective_length({1000: 0.8, 4000: 0.7, 8000: 0.5, 16000: 0.75}) == 4000  # 0.7 >= 0.68, 0.5 < 0.68
    assert effective_length({1000: 0.8, 4000: 0.9}) == 4000
    assert math.isnan(effective_length({1000: 0.0, 4000: 0.5}))  # nothing to keep
    items = pd.DataFrame({"qa_id": [f"q{i}" for i in range(4) for _ in range(2)], "context_tokens": [1000, 4000] * 4,
                          "judge_correct": [True, True, True, False, True, True, True, True]})
    result = effective_length_ci(items)  # 4/4 at 1000, 3/4 at 4000: 0.75 < 0.85
    assert result["effective_length"] == 1000 and result["base_accuracy"] == 1.0
    assert 1000 <= result["lo"] <= result["hi"] <= 4000


def test_the_depth_figure_shows_accuracy_by_length_and_the_effective_length(tmp_path):
    from lclab.depth_sweep.figure import depth_figure
    from lclab.stats.effective_length import accuracy_by_length, effective_length_ci

    # 10 QA pairs per length, the fewest from which the figure gives an effective length.
    items = pd.DataFrame([{"qa_id": f"q{i}", "context_tokens": n, "depth": d, "judge_correct": i < right}
                          for n, right in ((1000, 10), (4000, 10), (8000, 5)) for d in (0, 100) for i in range(10)])
    summary = pd.DataFrame([{"context_tokens": n, "depth": d, "judge_n": 10, "judge_acc": g.judge_correct.mean(),
                             "judge_lo": 0.0, "judge_hi": 1.0}
                            for (n, d), g in items.groupby(["context_tokens", "depth"])])
    effective = effective_length_ci(items)
    fig = depth_figure(summary, "t", tmp_path / "f.png", by_length=accuracy_by_length(items), effective=effective)
    heatmap, lengths = fig.axes[0], next(ax for ax in fig.axes if ax.get_xscale() == "log")
    assert heatmap.get_ylabel() == "context tokens" and lengths.get_xlabel() == "context tokens"
    assert effective["effective_length"] == 4000 and lengths.get_title().startswith("effective length 4,000 tokens")
    assert [line.get_xdata()[0] for line in lengths.get_lines() if line.get_color() == "tab:blue"] == [4000]
    assert (tmp_path / "f.png").exists()
    few = items[items["qa_id"].isin([f"q{i}" for i in range(4)])]
    fig = depth_figure(summary.assign(judge_n=4), "t", tmp_path / "g.png", by_length=accuracy_by_length(few),
                       effective=effective_length_ci(few))
    lengths = next(ax for ax in fig.axes if ax.get_xscale() == "log")
    assert lengths.get_title() == "effective length: not estimated (4 QA pairs per length, 10 needed)"


def test_a_stratified_bootstrap_keeps_each_strata_count_so_a_fixed_task_mix_adds_no_width():
    from lclab.stats.effective_length import RULER_THRESHOLD, effective_length_ci

    # Both tasks score 1.0 at 1k; at 2k task a still 1.0, task b 0.72 on every haystack: the mean over the tasks
    # is 0.86 (RULER's bar 0.856 passed) in every resample that keeps ten haystacks of each, and below the bar in
    # the resamples that draw more of b when twenty haystacks are drawn at random.
    rows = [{"task": t, "cluster": f"{t}-{i}", "context_tokens": n, "score": 0.72 if (t, n) == ("b", 2048) else 1.0}
            for t in "ab" for i in range(10) for n in (1024, 2048)]
    items = pd.DataFrame(rows)
    fixed = effective_length_ci(items, value="score", cluster="cluster", absolute=RULER_THRESHOLD, stratum="task")
    free = effective_length_ci(items, value="score", cluster="cluster", absolute=RULER_THRESHOLD)
    assert fixed["effective_length"] == fixed["lo"] == fixed["hi"] == 2048 and fixed["n_pairs"] == 20
    assert free["effective_length"] == 2048 and free["lo"] == 1024
