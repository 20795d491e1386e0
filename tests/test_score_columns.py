"""The one step that writes a Score into item columns, and the scorers that used to write their own."""

import pandas as pd
import pytest
from lclab.nli.pipeline import Verdict
from lclab.qa.checks import apply_checks
from lclab.scoring.logprob import weighted_score
from lclab.scoring.score import Score, unscored


def test_a_score_writes_its_value_metadata_and_reason_under_the_experiment_column():
    got = Score(True, answer='{"correct": true}', explanation="because", metadata={"p": 0.9, "source": "logprobs"})
    assert got.columns("judge_correct", error="judge_error") == {
        "judge_correct": True, "judge_correct_p": 0.9, "judge_correct_source": "logprobs", "judge_error": None}
    assert got.columns("v", answer="reply", explanation="why") == {
        "v": True, "v_p": 0.9, "v_source": "logprobs", "v_error": None, "reply": '{"correct": true}', "why": "because"}


def test_named_scores_stay_one_column_or_spread_one_column_each():
    named = Score({"recall": 0.5, "precision": 1.0}, metadata={"checks": [1]})
    assert named.columns("scores") == {"scores": {"recall": 0.5, "precision": 1.0}, "scores_checks": [1],
                                       "scores_error": None}
    assert named.columns("claims", spread=True) == {"claims_recall": 0.5, "claims_precision": 1.0,
                                                    "claims_checks": [1], "claims_error": None}
    assert unscored("claim extraction: no JSON").columns("claims", spread=True) == {
        "claims_error": "claim extraction: no JSON"}


def test_an_unscored_score_writes_no_value_and_its_reason():
    cols = unscored("no verdict in the reply", p=None).columns("faithful")
    assert cols == {"faithful": None, "faithful_p": None, "faithful_error": "no verdict in the reply"}


def test_a_probability_score_writes_how_it_was_read():
    cols = weighted_score([("1", -0.1), ("0", -2.5)], sampled="1").columns("p", error="error", answer="sampled")
    assert cols["p"] > 0.9 and cols["p_source"] == "logprobs" and cols["sampled"] == "1" and cols["error"] is None
    assert set(cols) == {"p", "p_probabilities", "p_mass_outside", "p_source", "error", "sampled"}


def test_an_nli_verdict_says_how_its_probabilities_were_read_and_why_it_is_unscored():
    facts = [{"fact": "a", "explanation": None, "tag": "supported", "p_supported": 0.8, "p_source": "logprobs"},
             {"fact": "b", "explanation": None, "tag": "not supported", "p_supported": 0.4, "p_source": "sampled"}]
    cols = Verdict(facts, refusal=None).columns("estimate", error="error")
    assert cols["estimate"] == 0.5 and cols["estimate_p"] == pytest.approx(0.6)
    assert cols["estimate_source"] == "sampled" and cols["estimate_n_facts"] == 2 and cols["error"] is None
    empty = Verdict([], refusal=None).columns("estimate", error="error")
    assert empty["estimate"] is None and empty["estimate_source"] is None and "no fact" in empty["error"]


def test_a_rejected_pair_keeps_every_check_result_beside_the_first_it_failed():
    pairs = pd.DataFrame([{"question": "Copied sentence.", "answer": "gunzip -c", "passage": "zcat is gunzip -c."},
                          {"question": "What is zcat the same as?", "answer": "gunzip -c",
                           "passage": "zcat is gunzip -c."}])
    kept, rejected, removed = apply_checks(pairs)
    assert len(kept) == 1 and removed["question_form"] == 1
    row = rejected.iloc[0]
    assert row["failed_check"] == "question_form" and not row["checks_question_form"] and row["checks_short_answer"]
