"""Every registered experiment, run from its notebook against an endpoint that refuses every call, ends the way a
failed run should: status "failed" with its first error in the manifest, one line on stderr per notebook, no
traceback of the lab's own (a KeyError about a column no call filled), and a figure that says it has nothing to
draw. The same run checks what ./run_all.sh prints: one line per notebook, no kernel or tqdm warnings."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lclab.experiments import experiments
from lclab.models.fault_server import FaultServer

pytestmark = [pytest.mark.model, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
BUGS = ("KeyError", "TypeError", "AttributeError", "IndexError", "NameError", "ValueError: cannot")


def test_every_experiment_ends_a_run_whose_calls_all_fail_with_its_status_and_first_error(tmp_path,
                                                                                         shared_embeddings):
    # 08 compares finished runs and calls no model; every other registered experiment is run.
    notebooks = [e.notebook_stem for e in experiments() if e.name != "compare"]
    assert len(notebooks) >= 9
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib"), "LCLAB_OUTPUT_DIR": str(tmp_path)}
    with FaultServer(always=400) as server:
        ran = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", "smoke", "--model",
                              f"openai/fail@{server.base_url}", *notebooks], capture_output=True, text=True,
                             env=env, timeout=1200, cwd=REPO)
    out = ran.stdout + ran.stderr
    assert ran.returncode == 1, out[-3000:]
    assert not [b for b in BUGS if b in out], out[-3000:]
    assert "without encryption" not in out and "IProgress" not in out and "it/s]" not in out
    failed_lines = [line for line in ran.stderr.splitlines() if line.startswith("!! ")]
    assert sorted(line.split()[1].rstrip(":") for line in failed_lines) == sorted(f"{n}.ipynb" for n in notebooks)
    assert all("400" in line for line in failed_lines), failed_lines
    manifests = [json.loads(p.read_text()) for p in (tmp_path / "results").glob("*/*/manifest.json")]
    assert len(manifests) >= len(notebooks)
    for m in manifests:
        assert m["status"] == "failed", (m["experiment"], m["status"])
        assert "400" in (m["trials"].get("first_error") or ""), (m["experiment"], m["trials"])
    # A figure with no finite point is one line of text, not empty axes (05's still draws its timings).
    drawn = {p.name.split("_smoke")[0]: p.stat().st_size for p in (tmp_path / "figures").glob("*.png")}
    assert drawn["context_vs_rag"] < 40_000 and drawn["synthetic"] < 40_000, drawn
