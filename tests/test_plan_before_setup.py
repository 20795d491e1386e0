"""`--plan` before set-up has fetched the models: nothing is assembled or loaded, the plan names what set-up still
has to fetch and how it counted their tokens, and llama.cpp's loader warnings stay out of it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from lclab.models.local_models import ensure_model

REPO = Path(__file__).resolve().parents[1]


def plan(model_dir: Path, tmp_path: Path, settings: str = "n_samples: 2",
         runner: tuple[str, ...] = ("-m", "lclab.runs.notebooks")) -> subprocess.CompletedProcess:
    profile = tmp_path / "tiny.yaml"
    profile.write_text(f"07_rag_ifeval: {{{settings}}}\n")
    env = {**os.environ, "LCLAB_MODEL_DIR": str(model_dir), "PYTHONPATH": str(REPO / "lib")}
    return subprocess.run([sys.executable, *runner, "--profile", str(profile), "--plan", "07_rag_ifeval"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=REPO)


def models_in(folder: Path) -> list[str]:
    """The files of a model folder that are not a plan's own records (the machine's speeds, the tokens counted)."""
    return sorted(p.name for p in folder.iterdir()
                  if p.name != "throughput.json" and not p.name.startswith("token_counts.sqlite"))


def holding_the_small_model(tmp_path: Path) -> tuple[Path, Path]:
    """A model folder that holds the assembled 0.5B only (linked, not copied): (the folder, the model)."""
    models = tmp_path / "models"
    models.mkdir()
    small = ensure_model("qwen2.5-coder-0.5b")
    (models / small.name).symlink_to(small)
    return models, small


def test_a_plan_before_any_model_is_fetched_counts_approximately_and_says_what_set_up_will_fetch(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    result = plan(models, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "07_rag_ifeval" in result.stdout and "total" in result.stdout
    assert "set-up still has to fetch and assemble qwen2.5-coder-0.5b" in result.stdout
    assert "counted approximately (tiktoken cl100k_base)" in result.stdout
    # nothing assembled (a plan in a process of all the cores keeps this machine's numpy figures there)
    assert models_in(models) == []


@pytest.mark.model
def test_a_plan_with_only_the_small_model_counts_the_other_with_its_tokenizer_and_stays_quiet(tmp_path):
    models, small = holding_the_small_model(tmp_path)
    result = plan(models, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "fetch and assemble qwen2.5-coder-1.5b" in result.stdout
    assert "qwen2.5-coder-1.5b: counted with qwen2.5-coder-0.5b-instruct.gguf's tokenizer" in result.stdout
    assert "n_ctx_train" not in result.stdout + result.stderr
    assert models_in(models) == [small.name]


HIDE_LLAMA_CPP = """
import importlib.abc, runpy, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "llama_cpp":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Hide())
sys.argv = ["notebooks", *sys.argv[1:]]
runpy.run_module("lclab.runs.notebooks", run_name="__main__")
"""


@pytest.mark.model
def test_a_plan_runs_with_no_compiled_llama_cpp_even_where_a_model_is_assembled(tmp_path):
    # As on a fresh clone planned by `./run_all.sh --plan`, which installs no llama.cpp; the model folder holds
    # the 0.5B (a second clone of a machine that has it), which without llama.cpp cannot count its tokens.
    models, _ = holding_the_small_model(tmp_path)
    result = plan(models, tmp_path, "n_samples: 2, models: [local/qwen2.5-coder-0.5b]", ("-c", HIDE_LLAMA_CPP))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "07_rag_ifeval" in result.stdout and "total" in result.stdout
