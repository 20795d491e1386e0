"""The OpenAI code path against a real OpenAI-compatible server: llama.cpp's, on loopback, with the 0.5B model."""

import subprocess
import sys

import pytest

from conftest import free_port, wait_for_http
from lclab import models as gateway
from lclab.models import reset_backend_registry
from lclab.models.local_models import ensure_model

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    # The server logs a lot: to a file, since an unread pipe fills up and blocks it.
    log_path = tmp_path_factory.mktemp("server") / "llama_server.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(ensure_model("qwen2.5-coder-0.5b")),
         "--model_alias", "qwen-0.5b", "--n_ctx", "2048", "--n_threads", "2", "--logits_all", "true",
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    wait_for_http(proc, f"{base_url}/models", log_path, "llama_cpp.server", 120)
    yield base_url
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


@pytest.fixture
def via_server(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server)
    reset_backend_registry()
    yield "openai/qwen-0.5b"
    reset_backend_registry()


def test_text_json_and_logprobs_through_the_server(via_server):
    text = gateway.complete(via_server, "What is the capital of France? One word.", stage="t", max_tokens=8)
    assert "paris" in text.text.lower() and text.prompt_tokens > 5 and not text.cached

    js = gateway.complete(via_server, 'Return a JSON object with key "n" set to the number 3.',
                          stage="t", response_format="json", max_tokens=16)
    assert js.json == {"n": 3}

    lp = gateway.complete(via_server, "Is 7 prime? Reply 1 for yes, 0 for no.", stage="t",
                          max_tokens=1, logprobs=True, top_logprobs=3)
    assert len(lp.logprobs) == 1 and 1 <= len(lp.logprobs[0]["top"]) <= 3


def test_server_replies_are_cached_by_base_url_and_model(via_server):
    first = gateway.complete(via_server, "Say hi.", stage="t", max_tokens=4)
    second = gateway.complete(via_server, "Say hi.", stage="t", max_tokens=4)
    assert second.cached and second.text == first.text


def test_tokens_for_remote_models_are_counted_with_tiktoken(via_server):
    name = gateway.tokenizer_name(via_server)
    assert "cl100k_base" in name and "approximate" in name
    assert gateway.count_tokens(via_server, "hello world") == 2
