"""llama.cpp's attention settings: flash attention for long windows, a q8_0 KV cache only with it, and the cache
key changed only by settings that differ from llama.cpp's defaults (so earlier replies keep their keys); and which
of set-up's two CPU builds runs here."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lclab.models import llama_engine
from lclab.models.llama import LocalBackend
from lclab.models.llama_engine import engine_settings
from lclab.models.specs import parse_spec

REPO = Path(__file__).resolve().parents[1]


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


def test_the_build_the_lab_reads_is_the_one_set_up_compiles_for_this_cpu(monkeypatch):
    # scripts/llama_cpp.sh picks the flags in bash, lclab reads the build in Python (installed, or before set-up
    # from the CPU): the two rules must name the same build, or shipped verdicts of the other build are read.
    if os.environ.get("LCLAB_LLAMA_CMAKE_ARGS"):
        pytest.skip("llama.cpp was compiled with the user's own flags")
    flags = subprocess.run(["bash", "-c", "source scripts/llama_cpp.sh && echo $CMAKE_FLAGS"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout
    compiled = "avx512" if "-DGGML_AVX512=ON" in flags else "avx2"
    llama_engine.cpu_build.cache_clear()
    installed = llama_engine.cpu_build()
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as before set-up: nothing to import
    llama_engine.cpu_build.cache_clear()
    try:
        assert llama_engine.cpu_build() == installed == compiled
    finally:
        llama_engine.cpu_build.cache_clear()


def test_before_set_up_the_build_asked_for_in_the_environment_is_the_one_named(monkeypatch):
    # An AVX2 build asked for on an AVX-512 CPU (a slower machine's kernels): before set-up the plan and the shipped
    # verdicts must follow the flags set-up will compile with, as scripts/llama_cpp.sh does.
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    for flags, build in (("-DGGML_AVX2=ON -DGGML_AVX512=OFF", "avx2"),
                         ("-DGGML_AVX512=ON -DGGML_AVX512_VNNI=ON", "avx512")):
        monkeypatch.setenv("LCLAB_LLAMA_CMAKE_ARGS", flags)
        asked = subprocess.run(["bash", "-c", "source scripts/llama_cpp.sh && echo $CMAKE_FLAGS"], cwd=REPO,
                               capture_output=True, text=True, check=True, env=dict(os.environ)).stdout.split()
        assert asked == flags.split()
        llama_engine.cpu_build.cache_clear()
        try:
            assert llama_engine.cpu_build() == build
        finally:
            llama_engine.cpu_build.cache_clear()
