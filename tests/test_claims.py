"""Claim-level diagnostics (lclab.scoring.claims): RAGChecker's eleven metrics from planted verdicts, computed
by hand here from the definitions in its README and metrics.py, and the lab's departures (undefined, not 0)."""

import math

import pandas as pd
import pytest
from lclab.scoring.claims import ClaimChecks, claim_metrics_table, extraction_prompt, item_metrics

# 3 answer claims (r1 right, r2 and r3 wrong), 2 reference claims (g1 in the answer, g2 not), 3 chunks: c1 holds
# g1 and r1; c2 holds only the wrong r2 (an irrelevant chunk the answer copied); r3 is in no chunk.
PLANTED = ClaimChecks(
    response_vs_reference=[0.9, 0.2, 0.1],
    reference_vs_response=[0.8, 0.3],
    reference_vs_chunks=[[0.9, 0.1, 0.1], [0.1, 0.1, 0.1]],
    response_vs_chunks=[[0.9, 0.0, 0.0], [0.0, 0.7, 0.0], [0.0, 0.0, 0.0]])


def test_the_eleven_metrics_of_a_planted_item_follow_ragcheckers_definitions():
    m = item_metrics(PLANTED)
    expected = {"precision": 1 / 3, "recall": 1 / 2, "f1": 0.4,
                "claim_recall": 1 / 2, "context_precision": 1 / 3, "context_utilization": 1.0,
                "noise_sensitivity_in_relevant": 0.0, "noise_sensitivity_in_irrelevant": 1 / 3,
                "hallucination": 1 / 3, "self_knowledge": 0.0, "faithfulness": 2 / 3}
    assert m == pytest.approx(expected)


def test_a_wrong_claim_from_a_relevant_chunk_is_noise_in_relevant_and_a_right_one_outside_the_chunks_self_knowledge():
    checks = ClaimChecks(response_vs_reference=[0.1, 0.9], reference_vs_response=[0.9],
                         reference_vs_chunks=[[0.9, 0.0]],
                         response_vs_chunks=[[0.8, 0.0], [0.0, 0.0]])
    m = item_metrics(checks)
    assert m["noise_sensitivity_in_relevant"] == 0.5 and m["noise_sensitivity_in_irrelevant"] == 0.0
    assert m["self_knowledge"] == 0.5 and m["hallucination"] == 0.0 and m["faithfulness"] == 0.5


def test_what_has_nothing_to_average_is_undefined_and_an_unread_check_leaves_the_item_unscored():
    no_answer_claims = item_metrics(ClaimChecks([], [0.9, 0.1], [[0.9], [0.9]], []))
    assert math.isnan(no_answer_claims["precision"]) and math.isnan(no_answer_claims["f1"])
    assert math.isnan(no_answer_claims["faithfulness"]) and no_answer_claims["recall"] == 0.5
    assert no_answer_claims["claim_recall"] == 1.0
    nothing_recalled = item_metrics(ClaimChecks([0.9], [0.9], [[0.1]], [[0.1]]))
    assert math.isnan(nothing_recalled["context_utilization"]) and nothing_recalled["claim_recall"] == 0.0
    unread = item_metrics(ClaimChecks([0.9, None], [0.9], [[0.9]], [[0.9], [0.9]]))
    assert all(math.isnan(v) for v in unread.values())


def test_the_table_averages_defined_items_with_an_interval_over_questions():
    rows = [{f"claims_{k}": v for k, v in item_metrics(PLANTED).items()} | {"qa_id": f"q{i}"} for i in range(3)]
    rows.append({"qa_id": "q3", "claims_precision": math.nan})
    table = claim_metrics_table(pd.DataFrame(rows), "qa_id", "questions").set_index("metric")
    assert table.loc["precision", "mean"] == pytest.approx(1 / 3) and table.loc["precision", "n"] == 3
    assert table.loc["precision", "undefined"] == 1 and table.loc["precision", "unit"] == "questions"
    assert table.loc["precision", "lo"] == pytest.approx(1 / 3)  # no spread between questions
    assert list(table["group"].unique()) == ["overall", "retriever", "generator"]


def test_the_extraction_prompt_numbers_the_sentences_and_an_empty_text_asks_nothing():
    prompt = extraction_prompt("Who?", "Ada wrote the notes. She was born in 1815.")
    assert "1. Ada wrote the notes." in prompt and "2. She was born in 1815." in prompt and '"Who?"' in prompt
    assert extraction_prompt("Who?", "   ") is None


def test_questions_without_claims_are_named_in_the_runs_notes():
    from lclab.rag_validation.run import claims_note

    items = pd.DataFrame({"qa_id": ["a", "b", "c"], "claims_error": [None, "claim extraction: no JSON", None]})
    assert claims_note(items) == ["claims: 1 of 3 questions without claim metrics (b: claim extraction: no JSON)"]
    assert claims_note(items.assign(claims_error=None)) == []


def test_a_run_reads_its_claims_at_the_checking_judges_card_cut():
    from lclab.scoring.claims import read_at

    items = pd.DataFrame([{"qa_id": "q0", "claims_checks": PLANTED.__dict__,
                           **{f"claims_{k}": v for k, v in item_metrics(PLANTED).items()}},
                          {"qa_id": "q1", "claims_checks": None, "claims_precision": math.nan}])
    assert read_at(items, 0.5) is items  # the card kept 0.5: nothing to re-read
    at_cut = read_at(items, 0.25)  # r3's 0.1 stays out; r2's 0.2 too; g2's 0.3 against the response now counts
    assert at_cut.loc[0, "claims_recall"] == 1.0 and at_cut.loc[0, "claims_recall_at_0.5"] == 0.5
    assert at_cut.loc[0, "claims_precision"] == pytest.approx(1 / 3)
    assert math.isnan(at_cut.loc[1, "claims_precision"])  # an item without checks stays undefined
    assert item_metrics(PLANTED, 0.05)["precision"] == 1.0  # and the cut reaches every check
