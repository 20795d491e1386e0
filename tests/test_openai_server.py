"""The OpenAI code path against a real OpenAI-compatible server: llama.cpp's, on loopback, with the 0.5B model."""

import pytest
from conftest import llama_server
from lclab import models as gateway
from lclab.models import Request, reset_backend_registry

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with llama_server(tmp_path_factory.mktemp("server")) as (_, base_url):
        yield base_url


@pytest.fixture
def via_server(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    reset_backend_registry()
    yield "openai/qwen-0.5b"
    reset_backend_registry()


def test_text_json_and_logprobs_through_the_server(via_server):
    text = gateway.complete(via_server, "What is the capital of France? One word.", stage="t",
                            request=Request(max_tokens=8))
    assert "paris" in text.text.lower() and text.prompt_tokens > 5 and not text.cached

    js = gateway.complete(via_server, 'Return a JSON object with key "n" set to the number 3.', stage="t",
                          request=Request(response_format="json", max_tokens=16))
    assert js.json == {"n": 3}

    lp = gateway.complete(via_server, "Is 7 prime? Reply 1 for yes, 0 for no.", stage="t",
                          request=Request(max_tokens=1, logprobs=True, top_logprobs=3))
    assert len(lp.logprobs) == 1 and 1 <= len(lp.logprobs[0]["top"]) <= 3


def test_server_replies_are_cached_by_base_url_and_model(via_server):
    first = gateway.complete(via_server, "Say hi.", stage="t", request=Request(max_tokens=4))
    second = gateway.complete(via_server, "Say hi.", stage="t", request=Request(max_tokens=4))
    assert second.cached and second.text == first.text


def test_tokens_for_remote_models_are_counted_with_tiktoken(via_server):
    name = gateway.tokenizer_name(via_server)
    assert "cl100k_base" in name and "approximate" in name
    assert gateway.count_tokens(via_server, "hello world") == 2
