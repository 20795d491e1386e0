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
import yaml
from lclab.experiments import experiments
from lclab.models.fault_server import FaultServer
from lclab.runs.notebooks import load_profile

pytestmark = [pytest.mark.model, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
BUSY_PROCESSES = 2  # the notebooks run in two processes at once (conftest starts it first among the heavy)
BUGS = ("KeyError", "TypeError", "AttributeError", "IndexError", "NameError", "ValueError: cannot")


def test_every_experiment_ends_a_run_whose_calls_all_fail_with_its_status_and_first_error(tmp_path,
                                                                                         shared_embeddings,
                                                                                         shared_cards):
    # 08 compares finished runs and calls no model; every other registered experiment is run. The notebooks are
    # split between two runs at once, each in its own output folder (a folder takes one run at a time): a
    # notebook here is mostly a kernel starting and imports, one core's work, and the machine has two.
    notebooks = [e.notebook_stem for e in experiments() if e.name != "compare"]
    assert len(notebooks) >= 9
    halves = {tmp_path / "a": notebooks[0::2], tmp_path / "b": notebooks[1::2]}
    with FaultServer(always=400) as server:
        # --model is the model under test; 00's generator is apart from it, so the profile names it too
        profile = load_profile("smoke")
        # Every call fails before a reply, so what ranks the chunks is not what this checks: the fake embedder
        # (hashed words) spares each kernel that indexes torch's import and the real model's encoding.
        profile["all"] = {**profile["all"], "embedder": "fake/words"}
        profile["00_make_qa_set"] = {**profile.get("00_make_qa_set", {}),
                                     "generator_model": f"openai/fail@{server.base_url}"}
        (tmp_path / "failing.yaml").write_text(yaml.safe_dump(profile))
        runs = {out: subprocess.Popen(
            [sys.executable, "-m", "lclab.runs.notebooks", "--profile", str(tmp_path / "failing.yaml"), "--model",
             f"openai/fail@{server.base_url}", *part], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO / "lib"), "LCLAB_OUTPUT_DIR": str(out)}, cwd=REPO)
            for out, part in halves.items()}
        ended = {out: (proc.communicate(timeout=1200), proc.returncode) for out, proc in runs.items()}
    failed_lines = []
    for out, ((stdout, stderr), returncode) in ended.items():
        printed = stdout + stderr
        assert returncode == 1, printed[-3000:]
        assert not [b for b in BUGS if b in printed], printed[-3000:]
        assert "without encryption" not in printed and "IProgress" not in printed and "it/s]" not in printed
        failed_lines += [line for line in stderr.splitlines() if line.startswith("!! ")]
    assert sorted(line.split()[1].rstrip(":") for line in failed_lines) == sorted(f"{n}.ipynb" for n in notebooks)
    assert all("400" in line for line in failed_lines), failed_lines
    manifests = [json.loads(p.read_text()) for p in tmp_path.glob("[ab]/results/*/*/manifest.json")]
    assert len(manifests) >= len(notebooks)
    for m in manifests:
        assert m["status"] == "failed", (m["experiment"], m["status"])
        assert "400" in (m["trials"].get("first_error") or ""), (m["experiment"], m["trials"])
    # A figure with no finite point is one line of text, not empty axes (05's still draws its timings).
    drawn = {p.name.split("_smoke")[0]: p.stat().st_size for p in tmp_path.glob("[ab]/figures/*.png")}
    assert drawn["context_vs_rag"] < 40_000 and drawn["synthetic"] < 40_000, drawn
