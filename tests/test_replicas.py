"""Several replicas of one served model: two real llama.cpp servers on loopback, one stopped mid-run."""

import pytest
from conftest import llama_server
from lclab.models import ACCOUNTING, Request, complete, reset_backend_registry
from lclab.models.configs import model_config
from lclab.models.specs import parse_spec

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_requests_spread_over_replicas_and_move_on_when_one_stops(tmp_path):
    reset_backend_registry()
    with llama_server(tmp_path, n_ctx=1024) as (_, url_a), llama_server(tmp_path, n_ctx=1024) as (b, url_b):
        spec = f"openai/qwen-0.5b@{url_a},{url_b}"
        questions = [f"What is {n} plus {n}? Reply with the number only." for n in range(1, 9)]
        replies = []
        with ACCOUNTING.scope() as ledger:
            for i, question in enumerate(questions):
                if i == 4:
                    b.terminate()  # replica b goes away in the middle of the run
                    b.wait(timeout=30)
                replies.append(complete(spec, question, stage="answer", request=Request(max_tokens=4)))
        assert len(replies) == len(questions) and all(r.text for r in replies)  # every item finished
        per_replica = ledger.endpoint_table().set_index("endpoint")
        assert set(per_replica.index) == {url_a, url_b}
        assert per_replica.loc[url_b, "calls"] >= 2 and per_replica.loc[url_b, "errors"] >= 1  # served, then failed
        assert per_replica.loc[url_a, "calls"] > per_replica.loc[url_b, "calls"] - per_replica.loc[url_b, "errors"]
        assert per_replica.loc[url_a, "errors"] == 0
        assert ledger.get("answer").retries >= 1 and ledger.get("answer").errors == 0
        # Replicas of one model share cached replies, whatever the order they are listed in.
        again = complete(f"openai/qwen-0.5b@{url_b},{url_a}", questions[0], stage="answer",
                         request=Request(max_tokens=4))
        assert again.cached and again.text == replies[0].text
    reset_backend_registry()


def test_the_benchmarks_api_base_list_names_replicas():
    config = model_config({"model": "bielik", "api_base": ["http://a:8000/v1", "http://u:pw@b:8000/v1"]})
    assert config.spec == "openai/bielik@http://a:8000/v1,http://u:pw@b:8000/v1"
    assert parse_spec(config.spec).base_urls() == ["http://a:8000/v1", "http://u:pw@b:8000/v1"]
    assert "pw" not in config.label and "b:8000" in config.label
    with pytest.raises(ValueError, match="non-empty list of URLs"):
        model_config({"model": "bielik", "api_base": []})
