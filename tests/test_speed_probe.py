"""The speed probe: this machine's prefill, decode, grammar and per-call costs, measured once and priced by plans."""

import json
import os

import pytest
from lclab.models import Request

MODEL = "local/qwen2.5-coder-0.5b"


def _write_probe(path, **probe):
    from lclab.planning import speed

    entry = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0, "seconds": 0.0,
             "probe": {"prompt_tokens_per_s": 1.0, "decode_tokens_per_s": 1.0} | probe}
    path.write_text(json.dumps({speed._machine(): {MODEL: entry}}))


def test_a_probed_machine_is_priced_at_its_own_prefill_decode_and_grammar(record):
    from lclab.planning.speed import DEFAULT_SPEED, SUSTAINED, seconds_for, speed_factor

    default = seconds_for(MODEL, 1_000, 100, 2, 2 * 500 ** 2)
    _write_probe(record, prefill_s_per_token=0.001, decode_s_per_token=0.01, grammar_s_per_token=0.02,
                 logprobs_s_per_token=0.005, call_s=0.0)
    *_, attention = DEFAULT_SPEED["qwen2.5-coder-0.5b"]
    probed = seconds_for(MODEL, 1_000, 100, 2, 2 * 500 ** 2)
    # a first run of a notebook is priced SUSTAINED times the probe's speeds (its reads are the fastest of two)
    assert probed == pytest.approx(SUSTAINED * ((1_000 + 2 * 500 ** 2 / attention) * 0.001 + 100 * 0.01))
    assert probed != pytest.approx(default)
    # a reply decoded under a JSON grammar pays the probed extra per token, one whose logprobs are read another;
    # a free one neither
    assert seconds_for(MODEL, 1_000, 100, 2, 2 * 500 ** 2, constrained=True) == pytest.approx(probed + SUSTAINED * 100 * 0.02)
    assert seconds_for(MODEL, 1_000, 100, 2, 2 * 500 ** 2, True, True) == pytest.approx(probed + SUSTAINED * 100 * 0.025)
    factor, source = speed_factor(MODEL)
    assert factor == SUSTAINED and source.startswith("this machine's speed probe")


def test_a_home_rebuilt_for_another_llama_cpp_build_is_probed_again(record, monkeypatch):
    # The AVX-512 build reads prompts 1.5x as fast as the AVX2 one on the same CPU: an AVX2 probe must not price it.
    from lclab.planning import probe, speed

    monkeypatch.setattr(speed, "cpu_build", lambda: "avx2")
    _write_probe(record, prefill_s_per_token=0.01)
    assert probe.probed(MODEL)
    monkeypatch.setattr(speed, "cpu_build", lambda: "avx512")
    assert speed._machine().endswith("(avx512 build)")
    assert not probe.probed(MODEL) and speed.speeds(MODEL)[0] != 0.01


def test_runs_after_the_probe_scale_its_speeds_and_older_ratios_are_set_aside(record, monkeypatch):
    from lclab.planning import probe
    from lclab.planning.speed import SUSTAINED, record_throughput, seconds_for, speed_factor

    job = (20_000, 400, 20, 20 * 1_000 ** 2)
    # 3x the reference's speeds (a plan before any run prices SUSTAINED x them)
    record_throughput(MODEL, job[0], job[1], job[2], 3 * seconds_for(MODEL, *job) / SUSTAINED,
                      {"prompt_tokens_sq": job[3]})
    assert speed_factor(MODEL)[0] == pytest.approx(3.0)
    probe._keep(MODEL, {"prefill_s_per_token": 0.002, "decode_s_per_token": 0.02, "grammar_s_per_token": 0.0,
                        "call_s": 0.0, "prompt_tokens_per_s": 500.0, "decode_tokens_per_s": 50.0})
    kept = json.loads(record.read_text())[next(iter(json.loads(record.read_text())))][MODEL]
    assert "priced_runs" not in kept and kept["priced_runs_before_probe"] == [3.0]  # another basis's ratio
    assert speed_factor(MODEL)[0] == SUSTAINED
    probed = seconds_for(MODEL, *job) / SUSTAINED
    # a run 1.5x the probed prediction
    record_throughput(MODEL, job[0], job[1], job[2], 1.5 * probed, {"prompt_tokens_sq": job[3]})
    assert seconds_for(MODEL, *job) == pytest.approx(1.5 * probed)


def test_a_run_is_set_against_the_plans_own_prices_so_kept_prefixes_and_extras_count_once(record):
    # A plan prices only the prompt after a prefix the model keeps, and each reply token's grammar and scoring. A
    # run that took twice what the plan priced must scale the next plan of the same calls by 2, not by a ratio to
    # whole prompts without extras (which priced 04's kept prefixes and 06's graded replies twice over).
    from lclab.planning.plan import row
    from lclab.planning.speed import SUSTAINED, record_throughput, speed_factor

    _write_probe(record, prefill_s_per_token=0.001, decode_s_per_token=0.01, grammar_s_per_token=0.02,
                 logprobs_s_per_token=0.005, call_s=0.01)
    todo, reply = [(1_000, 0), (1_000, 900), (1_000, 900)], 40
    judged = Request(max_tokens=20, response_format="json", logprobs=True)
    planned = row("nb", "judge", MODEL, 3, 0, 3_000, reply, todo, judged)["seconds"]
    record_throughput(MODEL, 3_000, reply, 3, 2 * planned / SUSTAINED,
                      {"prompt_tokens_sq": 3 * 1_000 ** 2, "read_prompt_tokens": 1_200,
                       "read_prompt_tokens_sq": 3 * 1_000 ** 2 - 2 * 900 ** 2, "grammar_tokens": reply,
                       "scored_tokens": reply})
    assert speed_factor(MODEL)[0] == pytest.approx(2.0)
    again = row("nb", "judge", MODEL, 3, 0, 3_000, reply, todo, judged)["seconds"]
    assert again == pytest.approx(2 * planned / SUSTAINED)
    # the same run counted as whole prompts without extras reads a different speed
    record.unlink()
    _write_probe(record, prefill_s_per_token=0.001, decode_s_per_token=0.01, grammar_s_per_token=0.02,
                 logprobs_s_per_token=0.005, call_s=0.01)
    record_throughput(MODEL, 3_000, reply, 3, 2 * planned / SUSTAINED, {"prompt_tokens_sq": 3 * 1_000 ** 2})
    assert speed_factor(MODEL)[0] != pytest.approx(2.0, rel=0.05)


def test_a_model_that_cannot_be_probed_says_why(monkeypatch):
    from lclab.planning.probe import probe, unprobeable

    assert unprobeable("openai/gpt-4o-mini") == "not an embedded model"
    monkeypatch.setenv("LCLAB_THREADS", "1")
    if (os.cpu_count() or 1) > 1:  # a test worker's share of the cores (or llama.cpp or the model missing)
        why = unprobeable(MODEL)
        assert why in ("this process has fewer threads than the machine has cores",
                       "llama.cpp is not installed yet (scripts/setup.sh)",
                       "not fetched yet (scripts/setup.sh fetches it)")
        with pytest.raises(RuntimeError, match=f"cannot probe {MODEL}: "):
            probe(MODEL)


@pytest.mark.model
def test_the_probe_measures_the_embedded_model_and_plans_read_it(record, monkeypatch, capsys):
    from lclab.planning import probe
    from lclab.planning.speed import speeds

    # A test worker computes on its share of the cores, which the probe refuses to take for the machine's speed;
    # here the record is the test's own, and the engine keeps the worker's threads.
    monkeypatch.setattr(probe, "threads_limited", lambda: False)
    monkeypatch.setattr(probe, "PROMPT_TOKENS", 64)  # plumbing, not a measurement: a short read, once
    monkeypatch.setattr(probe, "REPEATS", 1)
    assert probe.unprobeable(MODEL) is None
    assert probe.main(["qwen2.5-coder-0.5b"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("speed probe: local/qwen2.5-coder-0.5b reads ")
    seen = probe.probed(MODEL)
    assert seen["prompt_tokens_per_s"] > 1 and seen["decode_tokens_per_s"] > 1 and seen["grammar_s_per_token"] >= 0
    prefill, decode, overhead, _ = speeds(MODEL)
    assert (prefill, decode, overhead) == (seen["prefill_s_per_token"], seen["decode_s_per_token"], seen["call_s"])
    assert probe.main(["qwen2.5-coder-0.5b"]) == 0 and capsys.readouterr().out == ""  # once per machine


@pytest.mark.model
def test_the_shared_prefix_counts_the_chat_template_a_local_model_reads():
    # Two prompts with the same system message share it and the template's opening in the KV cache, though their
    # user messages differ from the first character: the plan counts that on the formatted prompts.
    from lclab.models.backends import count_prompt_tokens, shared_prefix_tokens

    system = "You answer questions about the river crossings. " * 20
    a = [{"role": "system", "content": system}, {"role": "user", "content": "When does crossing 7 open?"}]
    b = [{"role": "system", "content": system}, {"role": "user", "content": "Which crossing closes first?"}]
    kept = shared_prefix_tokens(MODEL, a, b)
    system_only = count_prompt_tokens(MODEL, [{"role": "system", "content": system}])
    assert system_only - 5 <= kept < count_prompt_tokens(MODEL, b)
    assert shared_prefix_tokens(MODEL, "Alpha question?", "Beta question?") > 0  # the default system message


def test_a_one_token_verdict_pays_neither_the_grammar_nor_the_scoring_of_a_longer_reply():
    # One-token verdicts are read from the prompt's last logits (no generation to constrain, no reply to score).
    from lclab.planning.plan import reply_kind

    assert reply_kind(Request(response_format="json", logprobs=True, max_tokens=32)) == (True, True)
    assert reply_kind(Request(logprobs=True, top_logprobs=20, max_tokens=1)) == (False, False)
    assert reply_kind(Request(temperature=0.0, max_tokens=64)) == (False, False)
    assert reply_kind(None) == (False, False)


@pytest.mark.model
def test_the_embedder_probe_prices_the_embed_stage_and_leaves_the_user_cache_alone(record, monkeypatch, tmp_path):
    from lclab.planning import probe
    from lclab.planning.plan import planned_embeddings

    monkeypatch.setenv("LCLAB_EMBEDDING_CACHE_DIR", str(tmp_path / "user-embeddings"))
    monkeypatch.setattr(probe, "EMBED_TEXTS", 8)  # plumbing, not a measurement
    monkeypatch.setattr(probe, "REPEATS", 1)
    result = probe.probe_embedder("local/all-MiniLM-L6-v2")
    assert result["embed_s_per_text"] > 0 and result["load_s"] >= 0
    assert os.environ["LCLAB_EMBEDDING_CACHE_DIR"] == str(tmp_path / "user-embeddings")  # restored
    assert not (tmp_path / "user-embeddings").exists()  # the probe's texts went to a folder of its own
    row = planned_embeddings("nb", "local/all-MiniLM-L6-v2", ["a chunk", "another chunk"])
    # two texts and the store's dimension probe, each at the probed price
    assert row["cached"] == 0 and row["seconds"] == pytest.approx(3 * result["embed_s_per_text"])


def test_a_probed_embedder_is_named_in_the_plan_by_its_own_figure(record):
    from lclab.planning import probe
    from lclab.planning.speed import speed_factor

    probe._keep("local/all-MiniLM-L6-v2", {"embed_s_per_text": 0.033, "load_s": 13.0})
    assert speed_factor("local/all-MiniLM-L6-v2") == (1.0, "this machine's speed probe (33 ms a passage)")


def test_the_probe_scores_as_many_alternatives_as_the_lab_reads():
    from lclab.planning.probe import SCORED_ALTERNATIVES
    from lclab.scoring.logprob import TOP_LOGPROBS

    assert SCORED_ALTERNATIVES == TOP_LOGPROBS


EMBEDDER = "local/all-MiniLM-L6-v2"


def test_a_machine_whose_notebooks_embedded_slower_than_its_probe_plans_at_what_its_runs_measured(record):
    # #91 §4: the probe embedded a passage in 27 ms, this machine's notebooks took ~55 ms a text: 03's 373 texts
    # are priced at the runs' median (a run on busy cores, 200 ms a text, does not move it), not at the probe.
    from lclab.planning import probe
    from lclab.planning.plan import planned_embeddings
    from lclab.planning.speed import MIN_EMBEDDED, record_embedding, speed_factor

    texts = [f"chunk {i} of a document set" for i in range(372)]  # and the store's dimension probe: 373
    probe._keep(EMBEDDER, {"embed_s_per_text": 0.027, "load_s": 7.0})
    before = planned_embeddings("03", EMBEDDER, texts)
    assert before["priced_at"] == "probe" and before["seconds"] == pytest.approx(373 * 0.027)
    for per_text in (0.054, 0.055, 0.2):
        record_embedding(EMBEDDER, 373, 373 * per_text)
    record_embedding(EMBEDDER, MIN_EMBEDDED - 1, 100.0)  # a batch's fixed cost, not a speed: not kept
    after = planned_embeddings("03", EMBEDDER, texts)
    assert after["priced_at"] == "measured in 3 runs"
    assert after["seconds"] == pytest.approx(373 * 0.055) and 20 < after["seconds"] < 21
    assert speed_factor(EMBEDDER) == (1.0, "median of 3 runs' embed stages measured here (55 ms a text; "
                                           "the probe's 27 ms)")
    probe._keep(EMBEDDER, {"embed_s_per_text": 0.03, "load_s": 7.0})  # probed again: the runs still price it
    assert planned_embeddings("03", EMBEDDER, texts)["priced_at"] == "measured in 3 runs"


def test_an_embedder_without_runs_is_priced_at_its_probe_else_the_reference_else_its_declared_figure(record):
    from lclab.planning import probe
    from lclab.planning.speed import REFERENCE, _priced, embed_basis

    assert embed_basis(EMBEDDER, 0.11) == (_priced(EMBEDDER, probed=False)["embed_s_per_text"], "reference")
    assert "embed_s_per_text" in REFERENCE["models"][EMBEDDER]
    probe._keep(EMBEDDER, {"embed_s_per_text": 0.033, "load_s": 13.0})
    assert embed_basis(EMBEDDER, 0.11) == (0.033, "probe")
    assert embed_basis("local/some/other-model", 0.2) == (0.2, "declared")


def test_a_runs_embed_stage_is_recorded_as_seconds_per_text_from_its_accounting_table(record):
    from lclab.models.accounting import Accounting
    from lclab.planning.speed import _entry, record_embeddings

    ledger = Accounting()
    ledger.note_model("embed", EMBEDDER)
    ledger.add("embed", calls=400, cache_hits=20, model_seconds=22.0)
    ledger.add("answer", calls=3, model_seconds=9.0)
    table = ledger.table()
    record_embeddings(table[table["stage"] == "embed"])
    assert _entry(EMBEDDER)["embed_runs"] == [0.055]
    fake = Accounting()
    fake.note_model("embed", "fake/embedder")  # a fake or remote embedder is no speed of this machine's
    fake.add("embed", calls=400, model_seconds=1.0)
    record_embeddings(fake.table()[fake.table()["stage"] == "embed"])
    assert not _entry("fake/embedder") and _entry(EMBEDDER)["embed_runs"] == [0.055]


def test_the_embed_stage_times_its_texts_and_their_cache_writes_not_the_embedders_load(monkeypatch, tmp_path):
    # A clock that the load moves by 100 s and each batch by 1 s: the stage's model time is the batches' alone.
    from types import SimpleNamespace

    from lclab.models import embeddings
    from lclab.models.accounting import ACCOUNTING

    clock = [0.0]

    class Loading(embeddings.FakeEmbedder):
        def _load(self):
            clock[0] += 100.0

        def _embed_uncached(self, texts):
            clock[0] += 1.0
            return super()._embed_uncached(texts)

    monkeypatch.setenv("LCLAB_EMBEDDING_CACHE_DIR", str(tmp_path / "embeddings"))
    monkeypatch.setattr(embeddings, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    with ACCOUNTING.scope() as ledger:
        Loading("fake/loading").embed([f"text {i}" for i in range(40)])  # two batches of at most 32
    stage = ledger.get("embed")
    assert (stage.calls, stage.model_seconds) == (40, 2.0)
    assert ledger.models_of("embed") == {"fake/loading"}
