"""Logprob-weighted scoring: the arithmetic on hand-made logprobs, the fallback and its flag, a real model."""

import math

import pytest
from conftest import SMALL_MODEL
from lclab.models.errors import LogprobsUnavailableError
from lclab.scoring.logprob import check_labels, sampled_score, score, weighted_score

ln = math.log


def test_weighted_sum_renormalizes_over_the_labels_and_records_the_rest():
    # p(1) = 0.6, p(0) = 0.2, 0.2 elsewhere -> renormalized 0.75 / 0.25 -> score 0.75
    got = weighted_score([["1", ln(0.6)], ["0", ln(0.2)], ["maybe", ln(0.15)], ["The", ln(0.05)]])
    assert got.score == pytest.approx(0.75)
    assert got.probabilities == pytest.approx({"0": 0.25, "1": 0.75})
    assert got.mass_outside == pytest.approx(0.2)
    assert got.source == "logprobs" and got.problem is None


def test_tokens_that_differ_only_by_white_space_are_one_label():
    got = weighted_score([[" 1", ln(0.3)], ["1", ln(0.3)], ["0", ln(0.4)]])
    assert got.probabilities["1"] == pytest.approx(0.6) and got.score == pytest.approx(0.6)


def test_a_wider_score_set_weights_every_label():
    labels = [str(i) for i in range(5)]  # 0..4
    got = weighted_score([["4", ln(0.5)], ["2", ln(0.25)], ["0", ln(0.25)]], labels)
    assert got.score == pytest.approx(4 * 0.5 + 2 * 0.25)


def test_no_label_among_the_alternatives_is_a_reported_failure_not_zero():
    got = weighted_score([["Yes", ln(0.9)], ["No", ln(0.1)]], sampled="Yes")
    assert got.score is None and "no score label" in got.problem and got.mass_outside == pytest.approx(1.0)


def test_sampled_fallback_reads_the_token_and_flags_it():
    assert sampled_score(" 1\n") == sampled_score("1")
    assert sampled_score("1").score == 1.0 and sampled_score("1").source == "sampled"
    bad = sampled_score("maybe")
    assert bad.score is None and "not one of" in bad.problem


def test_ambiguous_or_multi_token_labels_are_refused():
    with pytest.raises(ValueError, match="prefix"):
        check_labels(["1", "10"])
    with pytest.raises(ValueError, match="not a number"):
        check_labels(["yes", "no"])
    two_tokens = {"0": 1, "10": 2}.get
    with pytest.raises(ValueError, match="'10' is 2 tokens"):
        check_labels(["0", "10"], two_tokens)


@pytest.mark.model
def test_multi_token_label_is_refused_with_the_real_tokenizer():
    # Qwen splits numbers into digits: "10" is two tokens, so it cannot be read from the first one.
    with pytest.raises(ValueError, match="'10' is 2 tokens"):
        score(SMALL_MODEL, "Rate it.", labels=("0", "10"))


def test_backend_without_logprobs_falls_back_to_the_sampled_token(no_logprobs_server):
    from lclab.models.accounting import ACCOUNTING

    with ACCOUNTING.scope() as ledger:
        got = score(no_logprobs_server, "Is the sky blue? Reply 1 or 0.")
    assert ledger.get("score").errors == 0  # a fallback taken, not a failed call
    assert (got.score, got.source, got.mass_outside) == (1.0, "sampled", None)


def test_a_run_that_requires_logprobs_fails_at_once(no_logprobs_server):
    with pytest.raises(LogprobsUnavailableError, match="requires logprobs"):
        score(no_logprobs_server, "Is the sky blue? Reply 1 or 0.", require_logprobs=True)


@pytest.mark.model
def test_real_model_gives_a_probability_weighted_score():
    prompt = ("Context: The Eiffel Tower is in Paris.\nFact: The Eiffel Tower is in Paris.\n"
              "Does the context state the fact? Reply with 1 for yes or 0 for no, nothing else.")
    got = score(SMALL_MODEL, prompt)
    assert got.source == "logprobs" and 0.0 <= got.score <= 1.0
    assert sum(got.probabilities.values()) == pytest.approx(1.0)
    assert got.score > 0.5 and 0.0 <= got.mass_outside < 1.0


def test_a_json_verdict_is_read_at_its_token_and_renormalized_over_the_allowed_values():
    from lclab.scoring.logprob import value_probabilities

    tokens = [{"token": '{"', "top": []}, {"token": "correct", "top": []}, {"token": '":', "top": []},
              {"token": " true", "top": [[" true", math.log(0.6)], [" false", math.log(0.3)], ["maybe", math.log(0.1)]]},
              {"token": "}", "top": []}]
    (read,) = value_probabilities(tokens, "correct", ("true", "false"), "true")
    assert read.score == pytest.approx(2 / 3) and read.mass_outside == pytest.approx(0.1)
    assert read.sampled == "true" and read.source == "logprobs"
    # A string value split over tokens is read at its first one; each occurrence gets its own reading.
    tags = [{"token": '[{"tag": "', "top": []},
            {"token": "sup", "top": [["sup", math.log(0.5)], ["not", math.log(0.25)], ["contr", math.log(0.25)]]},
            {"token": 'ported"}, {"tag": "', "top": []},
            {"token": "not", "top": [["not", math.log(0.9)], ["sup", math.log(0.1)]]},
            {"token": ' mentioned"}]', "top": []}]
    reads = value_probabilities(tags, "tag", ("supported", "not mentioned", "contradicted"), "supported")
    assert [r.score for r in reads] == pytest.approx([0.5, 0.1]) and [r.sampled for r in reads] == [
        "supported", "not mentioned"]
