"""Shared fixtures. Every test gets its own model-call cache and output folder, so tests
never read each other's cached replies and never touch the committed figures."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from lclab import paths
from lclab.models import reset_backend_registry
from lclab.models.accounting import ACCOUNTING
from lclab.models.fault_server import FaultServer

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(proc, url: str, log_path, name: str, timeout: float) -> None:
    """Poll `url` until it answers 200; fail with the server's log if it exits or stays silent."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{name} exited: {log_path.read_text()[-2000:]}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail(f"{name} did not start within {timeout:.0f} s")


@pytest.fixture
def no_logprobs_server(monkeypatch):
    """An OpenAI-compatible endpoint that always replies "1" and never returns logprobs."""
    with FaultServer(reply="1") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        reset_backend_registry()
        yield "openai/no-logprobs"
    reset_backend_registry()
