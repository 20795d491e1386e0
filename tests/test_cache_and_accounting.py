import json
import threading

import pandas as pd

from lclab.models.accounting import Accounting
from lclab.models.cache import DiskCache, request_key


def test_key_ignores_dict_order_but_not_values():
    a = {"model": "m", "settings": {"temperature": 0, "max_tokens": 5}}
    b = {"settings": {"max_tokens": 5, "temperature": 0}, "model": "m"}
    assert request_key(a) == request_key(b)
    assert request_key(a) != request_key({**a, "settings": {"temperature": 0, "max_tokens": 6}})


def test_put_get_and_corrupt_entry_is_a_miss(tmp_path):
    cache = DiskCache(tmp_path)
    request = {"q": "x"}
    assert cache.get(request) is None
    cache.put(request, {"text": "y"})
    assert cache.get(request) == {"text": "y"}
    path = next(tmp_path.glob("*/*.json"))
    path.write_text("{ not json")
    assert cache.get(request) is None


def test_concurrent_writers_leave_only_whole_entries(tmp_path):
    cache = DiskCache(tmp_path)

    def writer(n):
        for i in range(50):
            cache.put({"i": i % 10}, {"text": f"writer {n}", "pad": "x" * 5000})

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 10
    for path in tmp_path.glob("*/*.json"):
        json.loads(path.read_text())  # every file is complete JSON
    assert not list(tmp_path.glob("*/.tmp-*"))


def test_accounting_table_sums_per_stage_and_total():
    acc = Accounting()
    acc.add("answer", calls=2, prompt_tokens=100, completion_tokens=10, model_seconds=3.0)
    acc.add("judge", calls=1, cache_hits=4, prompt_tokens=50, parse_failures=1)
    acc.span("answer", 10.0, 12.5)
    acc.span("answer", 11.0, 14.0)
    table = acc.table().set_index("stage")
    assert table.loc["answer", "wall_s"] == 4.0
    assert table.loc["total", "calls"] == 3
    assert table.loc["total", "prompt_tokens"] == 150
    assert table.loc["judge", "cache_hits"] == 4
    assert table.loc["judge", "parse_failures"] == 1


def test_each_call_is_counted_as_a_plan_prices_it_for_the_runs_measured_speed():
    # A run's speed is set against what its calls cost at the plan's prices (lclab.planning.speed.record_throughput):
    # a reply under a JSON grammar pays the grammar per token, one with logprobs its scoring, a one-token verdict
    # read from the last logits neither; the fake model keeps no prefix, so every prompt token is read.
    from lclab.models import ACCOUNTING, Request, complete

    asks = {"free": Request(max_tokens=8), "judged": Request(max_tokens=64, response_format="json", logprobs=True,
                                                             top_logprobs=2),
            "verdict": Request(max_tokens=1, logprobs=True, top_logprobs=2)}
    with ACCOUNTING.scope() as ledger:
        for stage, request in asks.items():
            complete("fake/judge", f"Is the {stage} reply counted as priced? Reply 1 or 0.", stage=stage,
                     request=request.but(cache_tag="priced"))
    counted = {stage: ledger.get(stage) for stage in asks}
    for stage, c in counted.items():
        assert c.calls == 1 and c.read_prompt_tokens == c.prompt_tokens > 0
        assert c.read_prompt_tokens_sq == c.prompt_tokens_sq == c.prompt_tokens ** 2
    assert (counted["free"].grammar_tokens, counted["free"].scored_tokens) == (0, 0)
    judged = counted["judged"].completion_tokens
    assert judged > 0 and (counted["judged"].grammar_tokens, counted["judged"].scored_tokens) == (judged, judged)
    assert (counted["verdict"].grammar_tokens, counted["verdict"].scored_tokens) == (0, 0)
    assert ledger.priced(["free", "judged"])["grammar_tokens"] == judged
    assert "read_prompt_tokens" not in ledger.table().columns  # the plan's counts stay out of accounting.csv


def test_the_ledger_counts_each_models_requests_by_key_made_or_cached_beside_an_unchanged_accounting_csv(
        tmp_path, monkeypatch):
    # Plan = run is checked against requests, not calls (#91): a warm cache makes no call, but the distinct
    # requests are still the ones a cold cache would call.
    from lclab.models import ACCOUNTING, Request, complete
    from lclab.models.accounting import COLUMNS

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path / "cache"))
    asks = [("fake/answerer", "Where does the river bend?"), ("fake/answerer", "Where does the road end?"),
            ("fake/answerer", "Where does the river bend?"), ("fake/judge", "Where does the river bend?")]
    with ACCOUNTING.scope() as cold:
        for model, prompt in asks:
            complete(model, prompt, stage="answer", request=Request(max_tokens=8))
    with ACCOUNTING.scope() as warm:  # every reply from the cache
        for model, prompt in asks[:3]:
            complete(model, prompt, stage="answer", request=Request(max_tokens=8))
    assert cold.get("answer").calls == 3 and warm.get("answer").calls == 0 and warm.get("answer").cache_hits == 3
    for ledger in (cold, warm):
        assert ledger.requests("answer", "fake/answerer") == (3, 2)
    assert cold.requests("answer", "fake/judge") == (1, 1) and warm.requests("answer", "fake/judge") == (0, 0)
    table = cold.save(tmp_path)
    assert list(pd.read_csv(tmp_path / "accounting.csv").columns) == list(table.columns) == COLUMNS
    saved = pd.read_csv(tmp_path / "requests.csv").set_index("model")
    assert saved.loc["fake/answerer", ["stage", "requests", "distinct_requests"]].tolist() == ["answer", 3, 2]
    assert saved.loc["fake/judge", ["requests", "distinct_requests"]].tolist() == [1, 1]
    warm.save(tmp_path, "rescore_accounting.csv")  # a rescore's beside it: the run's own stays
    assert pd.read_csv(tmp_path / "rescore_requests.csv")["requests"].tolist() == [3]
    assert pd.read_csv(tmp_path / "requests.csv")["requests"].sum() == 4


def test_the_accounting_log_keeps_every_invocation_of_a_run(tmp_path):
    from lclab.runs.folders import accounting_to_date, log_accounting

    first, rerun = Accounting(), Accounting()  # a cold run, then a warm rerun served from the cache
    first.add("answer", calls=3, prompt_tokens=300, completion_tokens=30, model_seconds=9.5)
    rerun.add("answer", cache_hits=3)
    assert accounting_to_date(tmp_path) == {}
    log_accounting(tmp_path, "2026-01-01T10:00:00", "interrupted", first.table())
    log_accounting(tmp_path, "2026-01-01T11:00:00", "finished", rerun.table())
    to_date = accounting_to_date(tmp_path)
    assert to_date["invocations"] == 2
    assert (to_date["calls"], to_date["cache_hits"], to_date["prompt_tokens"], to_date["model_s"]) == (3, 3, 300, 9.5)
