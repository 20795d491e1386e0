"""Shared fixtures. Every test gets its own model-call cache and output folder, so tests
never read each other's cached replies and never touch the committed figures."""

from __future__ import annotations

import pytest

from lclab import paths
from lclab.accounting import ACCOUNTING

SMALL_MODEL = "local/qwen2.5-coder-0.5b"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path / "llm-cache"))
    monkeypatch.setenv("LCLAB_OUTPUT_DIR", str(tmp_path))  # for notebook kernels (separate processes)
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(paths, "FIGURES", tmp_path / "figures")
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    ACCOUNTING.reset()
    yield
    ACCOUNTING.reset()
