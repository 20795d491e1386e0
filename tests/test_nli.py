"""NLI answer evaluation (seed 003): batching, aggregation, ordering, bad replies and bad inputs, the labelled set."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from conftest import SMALL_MODEL
from lclab.models import ACCOUNTING, reset_backend_registry
from lclab.models.fault_server import FaultServer
from lclab.nli import (
    EvalItem,
    auc_table,
    check_configs,
    load_items,
    load_labels,
    order_requests,
    prepare,
    refusal_table,
    run_configs,
)
from lclab.nli import run_nli as run_nli_in
from lclab.nli.run import Reading
from lclab.nli.pipeline import batches, hypothesis_estimate, pair_estimate, replace_pronouns, tag_refusals
from lclab.prompts import render
from lclab.runs.runner import Run

DATA = "data/nli_eval"


def run_nli(items, model, **how):
    """One configuration in a run folder of its own."""
    with Run("nli", "test") as run:
        return run_nli_in(run, items, model, **how)


@pytest.fixture
def fake_endpoint(monkeypatch):
    """An OpenAI-compatible endpoint that always gives one fixed reply: for faulty replies only."""
    servers = []

    def start(reply: str) -> tuple[str, FaultServer]:
        server = FaultServer(reply=reply).__enter__()
        servers.append(server)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        reset_backend_registry()
        return "openai/fake", server

    yield start
    for s in servers:
        s.__exit__(None, None, None)
    reset_backend_registry()


def numbered_lines(request: dict) -> int:
    return len(re.findall(r"^\d+\. ", request["messages"][0]["content"], flags=re.M))


# -- batching and aggregation --------------------------------------------------

def test_batches_of_16_and_of_8_keep_order_and_the_remainder():
    assert [len(b) for b in batches(list(range(35)), 16)] == [16, 16, 3]
    assert [len(b) for b in batches(list(range(17)), 8)] == [8, 8, 1]
    assert sum(batches(list(range(17)), 8), []) == list(range(17))
    with pytest.raises(ValueError):
        batches([1], 0)


def test_a_hypothesis_is_the_mean_of_its_facts_and_a_pair_the_mean_of_its_hypotheses():
    facts = [{"tag": "supported"}, {"tag": "supported"}, {"tag": "contradicted"}]
    assert hypothesis_estimate(facts) == pytest.approx(2 / 3)
    assert hypothesis_estimate([{"tag": "not mentioned"}]) == 0.0
    assert hypothesis_estimate([]) is None  # no fact found: no estimate, never a silent 0
    assert pair_estimate([1.0, 0.5, None, 0.0]) == pytest.approx(0.5)
    assert pair_estimate([None, None]) is None and pair_estimate([]) is None


def test_requests_sharing_a_premise_run_back_to_back_in_first_appearance_order():
    reqs = [{"premise": p, "n": i} for i, p in enumerate("ABACBA")]
    assert [(r["premise"], r["n"]) for r in order_requests(reqs, "premise")] == [
        ("A", 0), ("A", 2), ("A", 5), ("B", 1), ("B", 4), ("C", 3)]
    shuffled = order_requests(reqs, "shuffled", seed=1)
    assert sorted(r["n"] for r in shuffled) == list(range(6)) and shuffled == order_requests(reqs, "shuffled", seed=1)
    with pytest.raises(ValueError, match="order"):
        order_requests(reqs, "random")


def test_the_nli_prompt_puts_the_premise_before_the_hypothesis():
    text = render("nli_pair", source="", premise="PREMISE", hypothesis="HYPOTHESIS")
    assert text.index("PREMISE") < text.index("HYPOTHESIS")


# -- bad replies -------------------------------------------------------------

def test_refusal_texts_go_in_batches_of_8_and_a_short_batch_reply_fails_only_its_batch(fake_endpoint):
    reply = {"tags": [{"id": i + 1, "refusal": i % 2 == 0} for i in range(8)]}
    model, server = fake_endpoint(json.dumps(reply))
    items = [EvalItem(f"i{k}", "Some context sentence that is long enough.", "Q?", f"The ground truth is {k}.",
                      f"The answer is number {k}.") for k in range(9)]  # 18 texts: 8 + 8 + 2
    run = run_nli(items, model, reading=Reading(pronouns=False), quiet=True)
    refusal_requests = [r for r in server.requests if "answer refusal when" in r["messages"][0]["content"]]
    sizes = [numbered_lines(r) for r in refusal_requests]
    # The NLI calls before found that this endpoint gives no logprobs: the batches do not ask for them.
    assert sizes[:2] == [8, 8] and sizes[2:] == [2, 2]  # the 2-text batch is asked again once, then fails
    tagged = run.items[["answer_refusal", "gt_refusal"]]
    assert tagged.iloc[:8].notna().all().all()  # the first 16 texts are tagged
    assert tagged.iloc[8].isna().all()  # the last two are untagged, not "not a refusal"
    assert "refusal tagging failed" in run.items.problems.iloc[8]


def test_a_pronoun_reply_with_the_wrong_count_is_asked_again_then_keeps_the_originals(fake_endpoint):
    model, server = fake_endpoint(json.dumps({"sentences": ["Only one sentence came back."]}))
    sentences = ["The library lends books.", "It closes at eight.", "Its DVDs are lent for a week."]
    out, problem = replace_pronouns(model, sentences, "When does the library close?")
    assert out == sentences
    assert "kept the original 3 sentences" in problem and "exactly 3 are needed" in problem
    assert len(server.requests) == 2  # the call and one repair round


def test_a_judge_reply_without_json_is_a_counted_failure_not_a_zero(fake_endpoint):
    model, _ = fake_endpoint("I think it is entailed.")
    item = EvalItem("x", "The library opens at nine every weekday.", "When?", "It opens at nine on weekdays.",
                    "The library opens at nine.")
    run = run_nli([item], model, reading=Reading(pronouns=False), quiet=True)
    assert run.hypotheses.estimate.isna().all()
    assert run.hypotheses.error.str.contains("ParseError").all()
    assert run.items[["context_answer", "gt_answer", "answer_gt"]].isna().all().all()


def test_a_refusal_reply_with_the_wrong_ids_is_rejected(fake_endpoint):
    model, _ = fake_endpoint(json.dumps({"tags": [{"id": 2, "refusal": True}, {"id": 1, "refusal": False}]}))
    with pytest.raises(Exception, match="ids must be 1 to 2"):
        tag_refusals(model, ["First text here.", "Second text here."])


# -- bad inputs --------------------------------------------------------------

def test_an_empty_answer_is_reported_and_gets_no_estimate_rather_than_zero():
    p = prepare(EvalItem("e", "Context sentence long enough.", "Q?", "A ground truth sentence.", ""))
    assert p.answer_raw == [] and any("empty answer" in x for x in p.problems)


def test_configurations_are_checked():
    assert check_configs([{"model": "m"}]) == [{"model": "m", "variant": "separated", "concurrency": 1}]
    with pytest.raises(ValueError, match="unknown keys"):
        check_configs([{"model": "m", "threads": 4}])
    with pytest.raises(ValueError, match="variant"):
        check_configs([{"model": "m", "variant": "both"}])
    with pytest.raises(ValueError, match="concurrency"):
        check_configs([{"model": "m", "concurrency": 0}])


def test_a_malformed_item_file_names_the_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"item_id": "a", "context": "c", "question": "q", "ground_truth": "g"}) + "\n"
                    + "{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 1 \(a\): missing or non-string \['answer'\].*line 2: not JSON"):
        load_items(path)


def test_a_label_on_an_edited_sentence_is_an_error_naming_the_row(tmp_path):
    items = load_items(f"{DATA}/items.jsonl")
    labels = pd.read_csv(f"{DATA}/hypothesis_labels.csv", dtype=str, keep_default_na=False)
    labels.loc[0, "sentence"] = "A sentence nobody wrote."
    labels.to_csv(tmp_path / "hypothesis_labels.csv", index=False)
    (tmp_path / "refusal_labels.csv").write_text((pd.read_csv(f"{DATA}/refusal_labels.csv")
                                                   .to_csv(index=False)), encoding="utf-8")
    with pytest.raises(ValueError, match=r"row 2 \(library-1, context_answer, 0\): the labelled sentence"):
        load_labels(tmp_path, items)


# -- the committed labelled set ----------------------------------------------

def test_the_labelled_set_has_40_items_and_every_hypothesis_labelled():
    items = load_items(f"{DATA}/items.jsonl")
    labels = load_labels(DATA, items)
    assert len(items) >= 40 and len(labels.hypotheses) >= 150
    kinds = set(pd.read_json(f"{DATA}/items.jsonl", lines=True)["kind"])
    assert {"faithful", "unsupported", "contradicted", "partial", "refusal", "wrong_gt"} <= kinds
    expected = {(it.item_id, d, i) for it in items for d, hyps in
                (("context_answer", prepare(it).answer_raw), ("gt_answer", prepare(it).answer_raw),
                 ("answer_gt", prepare(it).gt_raw)) for i in range(len(hyps))}
    got = set(zip(labels.hypotheses.item_id, labels.hypotheses.direction, labels.hypotheses["index"]))
    assert got == expected
    for d, part in labels.hypotheses.groupby("direction"):
        assert 0 < part.entailed.sum() < len(part), d  # both classes: AUC is defined
    assert len(labels.refusals) == 2 * len(items) and labels.refusals.refusal.sum() >= 5


def test_the_auc_interval_resamples_answers_not_their_sentences():
    import numpy as np
    from lclab.stats.card import cluster_auc_ci

    rng = np.random.default_rng(4)
    entailed = rng.integers(0, 2, 24)
    estimate = np.clip(entailed * 0.3 + rng.random(24) * 0.7, 0, 1)
    answers = np.repeat(list("abcdefgh"), 3)  # three sentences of each of eight answers
    hyp = pd.DataFrame({"model": "m", "prompt": "separated", "concurrency": 1, "item_id": answers,
                        "direction": "context_answer", "index": np.tile([0, 1, 2], 8), "estimate": estimate,
                        "entailed": entailed})
    row = auc_table(hyp).iloc[0]
    assert (row["auc_lo"], row["auc_hi"]) == cluster_auc_ci(entailed, estimate, answers)


def test_auc_and_refusal_tables_count_unscored_and_untagged_rather_than_guess():
    hyp = pd.DataFrame({"model": "m", "prompt": "separated", "concurrency": 1,
                        "item_id": list("abcde"), "direction": "context_answer", "index": 0,
                        "estimate": [1.0, 0.5, 0.0, None, 1.0], "entailed": [1, 1, 0, 1, 0]})
    row = auc_table(hyp).iloc[0]
    assert row["n"] == 4 and row["unscored"] == 1
    # positives {1.0, 0.5} vs negatives {0.0, 1.0}: 1 + 0.5 (tie) + 1 + 0 of 4 pairs
    assert row["auc"] == pytest.approx(2.5 / 4)
    items = pd.DataFrame({"model": "m", "prompt": "separated", "concurrency": 1, "item_id": ["a", "b"],
                          "answer_refusal": [True, None], "gt_refusal": [False, False]})
    truth = pd.DataFrame({"item_id": ["a", "a", "b", "b"], "text": ["answer", "ground_truth"] * 2,
                          "refusal": [1, 1, 0, 0]})
    r = refusal_table(items, truth).iloc[0]
    assert (r["labelled_texts"], r["untagged"], r["accuracy"], r["missed_refusals"]) == (4, 1, 2 / 3, 1)


# -- timing, caching ---------------------------------------------------------

def both_replies(n_texts: int) -> str:
    """One fixed reply that is valid both as an NLI verdict and as a refusal batch of n_texts."""
    return json.dumps({"facts": [{"fact": "f", "explanation": "e", "tag": "supported"}],
                       "tags": [{"id": i + 1, "refusal": False} for i in range(n_texts)]})


def test_concurrency_levels_make_their_own_calls_and_a_cached_rerun_reports_the_recorded_times(fake_endpoint):
    from lclab.nli import Labels

    model, server = fake_endpoint(both_replies(2))
    item = EvalItem("a", "The ferry crossing takes forty minutes.", "How long is the crossing?",
                    "The crossing takes forty minutes.", "It takes forty minutes to cross.")
    labels = Labels(pd.DataFrame({"item_id": "a", "direction": ["context_answer", "gt_answer", "answer_gt"],
                                  "index": 0, "sentence": "", "entailed": [1, 1, 1]}),
                    pd.DataFrame({"item_id": ["a", "a"], "text": ["answer", "ground_truth"], "refusal": [0, 0]}))
    configs = [{"model": model, "concurrency": 1}, {"model": model, "concurrency": 2}]
    first = run_configs([item], labels, configs, "t", reading=Reading(pronouns=False), quiet=True)
    # per level: three NLI calls and one refusal batch, plus the first call asked once more without logprobs
    assert len(server.requests) == 2 * (3 + 1) + 1
    timing = first.tables["timing"]
    assert (timing.times_from == "this run").all() and timing.nli_calls.tolist() == [5, 4]
    again = run_configs([item], labels, configs, "t", reading=Reading(pronouns=False), quiet=True)
    assert len(server.requests) == 9  # nothing asked twice: every row resumed from the item logs
    rerun = again.tables["timing"]
    assert rerun.nli_s.tolist() == timing.nli_s.tolist()  # the times of the run that made the calls
    assert rerun.nli_calls.tolist() == [5, 4] and rerun.times_from.str.startswith("run of").all()
    assert (first.tables["refusal"].accuracy == 1.0).all()
    assert again.summary.auc.equals(first.summary.auc)
    for log in ("transforms", "hypotheses", "refusals"):  # the rows of the rerun were not written again
        path = first.dir / f"{log}.jsonl"
        assert not path.exists() or len(path.read_text().splitlines()) == len(set(path.read_text().splitlines()))
    (first.dir / "hypotheses.jsonl").unlink()  # rows lost, replies still in the model cache
    cached = run_configs([item], labels, configs, "t", reading=Reading(pronouns=False), quiet=True)
    assert len(server.requests) == 9
    ledger = cached.accounting.set_index("stage")
    assert ledger.loc["total", "calls"] == 0 and ledger.loc["nli", "cache_hits"] == 6
    assert cached.summary.auc.equals(first.summary.auc)


# -- the real local model, at tiny size --------------------------------------

@pytest.mark.model
def test_an_answer_that_is_only_a_refusal_runs_through_the_same_prompt_variant_with_concurrency(kept_model_calls):
    item = EvalItem("r", "Cedar Court residents may keep one cat or one small dog per flat.",
                    "Can I keep a parrot?", "The rules do not mention birds.", "I don't know.")
    with ACCOUNTING.scope() as ledger:
        run = run_nli([item], SMALL_MODEL, variant="same", concurrency=2, quiet=True)
    h = run.hypotheses
    assert list(h.direction) == ["context_answer", "gt_answer", "answer_gt"]
    assert h.hypothesis.iloc[0] == "I don't know."  # one short sentence: nothing to merge it with
    ok = h[h.error.isna()]
    assert ok.estimate.between(0, 1).all() and ok.estimate_refusal.isin([True, False]).all()
    assert run.items.answer_refusal.iloc[0] in (True, False)  # from the NLI replies: no refusal batch
    asked = {stage: ledger.get(stage).calls + ledger.get(stage).cache_hits for stage in ("nli", "pronouns")}
    assert asked == {"nli": 3, "pronouns": 2}  # made, or replayed from an earlier session's run of this test


@pytest.mark.model
def test_a_context_longer_than_the_window_is_reported_not_truncated(kept_model_calls):
    long_context = "The ferry runs every ninety minutes in summer. " * 1500  # ~13k tokens > n_ctx 8192
    item = EvalItem("long", long_context, "How often does the ferry run?", "Every ninety minutes in summer.",
                    "The ferry runs every ninety minutes.")
    run = run_nli([item], SMALL_MODEL, reading=Reading(pronouns=False), quiet=True)
    h = run.hypotheses.set_index("direction")
    assert "ContextLengthError" in h.loc["context_answer", "error"]
    assert "exceeds the local context window" in h.loc["context_answer", "error"]
    assert pd.isna(h.loc["context_answer", "estimate"])
    assert pd.isna(run.items.context_answer.iloc[0])
    assert h.loc[["gt_answer", "answer_gt"], "error"].isna().all()  # the other pairs are still judged


def test_the_headline_of_a_probability_run_is_the_auc_of_p_supported_not_of_its_tags():
    import pandas as pd
    from lclab.nli.evaluate import headline_row
    from lclab.nli.tables import SCORERS

    auc = pd.DataFrame([{"model": "m", "prompt": "probability", "concurrency": 1, "scorer": SCORERS["estimate"],
                         "direction": "context → answer", "auc": 0.80},
                        {"model": "m", "prompt": "probability", "concurrency": 1, "scorer": SCORERS["estimate_p"],
                         "direction": "context → answer", "auc": 0.90}])
    assert headline_row(auc)["auc"] == 0.90
    separated = auc.assign(prompt="separated")
    assert headline_row(separated)["auc"] == 0.80  # the tags are what the separated variant is read by
    assert headline_row(auc.iloc[:0]) == {}
