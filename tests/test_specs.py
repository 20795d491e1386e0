import pytest
from lclab.models.specs import parse_spec


def test_local_and_openai_specs(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    s = parse_spec("local/qwen2.5-coder-0.5b")
    assert (s.backend, s.model) == ("local", "qwen2.5-coder-0.5b")
    assert parse_spec("local/models/my.gguf").model == "models/my.gguf"
    o = parse_spec("openai/gpt-4o-mini")
    assert (o.backend, o.model, o.base_url) == ("openai", "gpt-4o-mini", None)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    assert parse_spec("openai/served").base_url == "http://127.0.0.1:8000/v1"
    assert parse_spec("openai/served").api_key() == "not-needed"


def test_named_endpoint_profiles(monkeypatch):
    assert parse_spec("ollama/llama3.1").base_url == "http://127.0.0.1:11434/v1"
    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="VLLM_BASE_URL"):
        parse_spec("vllm/meta-llama/Llama-3.1-8B")
    monkeypatch.setenv("VLLM_BASE_URL", "http://gpu-box:8000/v1")
    spec = parse_spec("vllm/meta-llama/Llama-3.1-8B")
    assert spec.model == "meta-llama/Llama-3.1-8B" and spec.api_key_env == "VLLM_API_KEY"


@pytest.mark.parametrize("bad", ["qwen", "local/", "nosuch/model"])
def test_bad_specs_say_what_is_accepted(bad):
    with pytest.raises(ValueError, match="local"):
        parse_spec(bad)


def test_credentials_in_a_base_url_never_reach_logs_or_cache_keys(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:hunter2@proxy.example:8443/v1/")
    assert parse_spec("openai/m").public_base_url() == "https://proxy.example:8443/v1"


def test_an_endpoint_given_by_url_and_a_transformers_directory(monkeypatch):
    monkeypatch.delenv("API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-usual")
    s = parse_spec("openai/meta-llama/Llama-3.1-8B@http://gpu:8000/v1")
    assert (s.backend, s.model, s.base_url) == ("openai", "meta-llama/Llama-3.1-8B", "http://gpu:8000/v1")
    assert s.api_key() == "sk-usual"
    monkeypatch.setenv("API_KEY", "sk-benchmark")  # RAG-IFEval's variable wins when set
    assert parse_spec("openai/m@https://h/v1").api_key() == "sk-benchmark"
    h = parse_spec("hf//models/bielik?dtype=bfloat16&attn_implementation=sdpa")
    assert (h.backend, h.model) == ("hf", "/models/bielik")
    assert h.options == (("attn_implementation", "sdpa"), ("dtype", "bfloat16"))
    assert parse_spec("hf/rel/dir").options == ()


def test_replicas_in_the_url_form_and_in_endpoints_yaml(tmp_path, monkeypatch):
    from lclab.models.remote import OpenAIBackend

    spec = parse_spec("openai/m@http://b:2/v1,http://u:secret@a:1/v1")
    assert spec.base_urls() == ["http://b:2/v1", "http://u:secret@a:1/v1"]
    assert spec.public_base_url() == "http://b:2/v1,http://a:1/v1"
    swapped = OpenAIBackend(parse_spec("openai/m@http://a:1/v1,http://b:2/v1"))
    assert OpenAIBackend(spec).identity == swapped.identity  # one model: one cache key, whatever the order
    assert OpenAIBackend(parse_spec("openai/m@http://a:1/v1")).identity["base_url"] == "http://a:1/v1"
    endpoints = tmp_path / "endpoints.yaml"
    endpoints.write_text("farm:\n  base_url: [http://g1:8000/v1, http://g2:8000/v1]\n")
    monkeypatch.setenv("LCLAB_ENDPOINTS", str(endpoints))
    assert parse_spec("farm/llama").base_urls() == ["http://g1:8000/v1", "http://g2:8000/v1"]
