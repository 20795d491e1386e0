"""A model spec with credentials in its URL (user:password, a key in the query string) is called with them and
recorded without them: a run through the notebook runner against the llama.cpp server the set-up builds, then
the report, and every file they wrote is searched for the canary strings."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from lclab.models.specs import redact
from lclab.runs.naming import model_slug

pytestmark = [pytest.mark.model, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def test_redaction_drops_user_info_and_secret_query_values_and_keeps_the_rest():
    # Every query value is hidden, whatever its name (Azure Functions' code=, pwd=, jwt= are keys too).
    assert redact("openai/q@http://u:pw@h:8000/v1?api-key=k1&api-version=2024") == \
        "openai/q@http://h:8000/v1?api-key=REDACTED&api-version=REDACTED"
    assert redact("openai/q@http://a:1/v1,https://u:p@b/v1?sig=s") == "openai/q@http://a:1/v1,https://b/v1?sig=REDACTED"
    assert redact("local/qwen2.5-coder-0.5b") == "local/qwen2.5-coder-0.5b"
    assert model_slug("openai/qwen@http://u:pw@gpu1:8000/v1") == "qwen-gpu1-8000"
    assert model_slug("openai/qwen@http://gpu2:8000/v1") == "qwen-gpu2-8000"  # another server, another folder


def test_a_url_credential_reaches_no_file_a_run_writes(bundled_llama_server, tmp_path):
    url = bundled_llama_server.replace("http://", "http://lab:CANARYPASS@") + "?api_key=CANARYKEY"
    profile = tmp_path / "canary.yaml"
    profile.write_text(yaml.safe_dump({"09_synthetic_tasks": {
        "tasks": ["needle_single"], "context_tokens": [300], "depths": [50], "n_samples": 1,
        "max_answer_tokens": 16, "run_name": "canary"}}))
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib")}
    spec = f"openai/qwen@{url}"
    ran = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", str(profile), "--model", spec,
                          "09_synthetic_tasks"], capture_output=True, text=True, env=env, timeout=600, cwd=REPO)
    assert ran.returncode == 0, ran.stderr[-3000:]
    report = subprocess.run([sys.executable, "-m", "lclab.runs.report", "--profile", str(profile), "--model", spec],
                            capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    assert report.returncode == 0, report.stderr[-3000:]

    port = bundled_llama_server.split(":")[-1].split("/")[0]
    run_dir = tmp_path / "results" / "synthetic" / f"canary-qwen-127.0.0.1-{port}"
    assert (run_dir / "manifest.json").exists()  # named after the served model and its host
    assert "api_key=REDACTED" in (run_dir / "manifest.json").read_text()
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != profile]
    assert len(written) > 10 and any(p.suffix == ".ipynb" for p in written) and any(p.suffix == ".png" for p in written)
    leaks = [str(p.relative_to(tmp_path)) for p in written if b"CANARY" in p.read_bytes()]
    assert leaks == []
    assert "CANARY" not in ran.stdout + ran.stderr + report.stdout + report.stderr
