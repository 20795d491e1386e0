"""llama.cpp's attention settings: flash attention for long windows, a q8_0 KV cache only with it, and the cache
key changed only by settings that differ from llama.cpp's defaults (so earlier replies keep their keys)."""

import pytest
from lclab.models.llama import LocalBackend
from lclab.models.llama_engine import engine_settings
from lclab.models.specs import parse_spec


def test_flash_attention_is_on_for_long_windows_only_unless_the_environment_says(monkeypatch):
    monkeypatch.delenv("LCLAB_FLASH_ATTN", raising=False)
    assert engine_settings(8192)["flash_attn"] is False
    assert engine_settings(32768)["flash_attn"] is True
    monkeypatch.setenv("LCLAB_FLASH_ATTN", "0")
    assert engine_settings(32768)["flash_attn"] is False
    monkeypatch.setenv("LCLAB_FLASH_ATTN", "1")
    assert engine_settings(2048)["flash_attn"] is True


def test_a_quantized_kv_cache_needs_flash_attention_and_a_known_type(monkeypatch):
    monkeypatch.setenv("LCLAB_KV_TYPE", "q8_0")
    monkeypatch.setenv("LCLAB_FLASH_ATTN", "1")
    assert engine_settings(4096)["type_v"] == 8
    monkeypatch.setenv("LCLAB_FLASH_ATTN", "0")
    with pytest.raises(ValueError, match="needs flash attention"):
        engine_settings(4096)
    monkeypatch.setenv("LCLAB_KV_TYPE", "q4")
    with pytest.raises(ValueError, match="LCLAB_KV_TYPE='q4'"):
        engine_settings(4096)


def test_only_settings_that_differ_from_llama_cpps_defaults_join_the_cache_key(monkeypatch):
    for name in ("LCLAB_FLASH_ATTN", "LCLAB_KV_TYPE", "LCLAB_N_GPU_LAYERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LCLAB_N_CTX", "8192")
    short = LocalBackend(parse_spec("local/qwen2.5-coder-0.5b")).identity
    assert set(short) == {"backend", "model_sha256"}
    monkeypatch.setenv("LCLAB_N_CTX", "32768")
    long = LocalBackend(parse_spec("local/qwen2.5-coder-0.5b")).identity
    assert long == {**short, "flash_attn": True}
