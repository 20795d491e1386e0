import subprocess

import pytest
from lclab.paths import REPO
from lclab.runs.notebooks import (
    NOTEBOOKS,
    UnknownParameterError,
    declared_parameters,
    execute,
    local_models_needed,
    parameters_for,
)

SWEEP = NOTEBOOKS / "01_lost_in_the_middle.ipynb"


def test_unknown_notebook_parameter_is_an_error_not_a_warning():
    with pytest.raises(UnknownParameterError, match=r"no parameter\(s\) \['context_token'\]"):
        parameters_for(SWEEP, {"01_lost_in_the_middle": {"context_token": [500]}})
    with pytest.raises(UnknownParameterError):
        execute(SWEEP, {"nonsense": 1}, REPO / "never-written.ipynb")


def test_shared_parameters_apply_only_where_declared_and_model_overrides(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # a served model needs its key before anything runs
    params = parameters_for(SWEEP, {"all": {"run_name": "x", "n_passages": 3}}, model="openai/m")
    # another model: a run folder of its own, judged by the profile's judge (the notebook's own model)
    assert params == {"run_name": "x-m", "model": "openai/m", "judge_model": "local/qwen2.5-coder-1.5b"}


def test_a_judge_grading_its_own_answers_is_named_and_another_judge_is_not():
    from lclab.runs.preflight import judge_is_answerer

    def check(notebook, params):
        return judge_is_answerer(notebook.stem, declared_parameters(notebook), params)

    same = check(SWEEP, {"model": "local/qwen2.5-coder-0.5b", "judge_model": "local/qwen2.5-coder-0.5b"})
    assert "01_lost_in_the_middle: the judge is the answering model (local/qwen2.5-coder-0.5b)" in same
    assert check(SWEEP, {"model": "local/qwen2.5-coder-0.5b"}) is None  # the default judge is the 1.5B
    assert check(NOTEBOOKS / "09_synthetic_tasks.ipynb", {}) is None  # no judge at all


def test_fewer_validated_pairs_than_asked_is_said():
    from lclab.qa import load_validated
    from lclab.qa.review import FewerPairsWarning

    with pytest.warns(FewerPairsWarning, match=r"n_qa is 500 but only \d+ pairs are validated"):
        _, _, qa = load_validated("paul_graham", "data/pg_qa/qa.csv", 500)
    assert 0 < len(qa) < 500


def test_models_needed_follow_defaults_and_overrides():
    assert local_models_needed([(SWEEP, {})]) == ["qwen2.5-coder-1.5b"]
    assert local_models_needed([(SWEEP, {"model": "local/qwen2.5-coder-0.5b",
                                         "judge_model": "openai/x"})]) == ["qwen2.5-coder-0.5b"]
    ifeval = NOTEBOOKS / "07_rag_ifeval.ipynb"  # models given as model-config objects count too
    assert local_models_needed([(ifeval, {"models": [{"model": "local/qwen2.5-coder-0.5b", "max_tokens": 9},
                                                     {"model": "m", "api_base": "http://h/v1"}]})]) \
        == ["qwen2.5-coder-0.5b"]


def test_every_notebook_is_committed_without_outputs_and_has_parameters():
    import json

    for path in NOTEBOOKS.glob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        assert all(not c.get("outputs") for c in cells if c["cell_type"] == "code"), path.name
        assert any("parameters" in c.get("metadata", {}).get("tags", []) for c in cells), path.name


@pytest.mark.parametrize("args, message", [(["--bogus"], "unknown option '--bogus'"),
                                           (["--profile", "nope"], "no profile 'nope' (looked for params/nope.yaml)"),
                                           (["--profile", "/tmp/none/mine.yaml"],
                                            "no profile file '/tmp/none/mine.yaml'")])
def test_run_all_rejects_bad_options_with_usage(args, message):
    result = subprocess.run([str(REPO / "run_all.sh"), *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert message in result.stderr


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_papermill_sees_every_parameter_a_notebook_declares(notebook):
    # papermill silently drops a parameter line it cannot parse (an "=" inside a
    # comment is enough), and a profile setting it would then be refused as unknown.
    import re

    import nbformat

    cell = next(c for c in nbformat.read(notebook, 4).cells if "parameters" in c.metadata.get("tags", []))
    assigned = set(re.findall(r"^(\w+)\s*=", cell.source, flags=re.M))
    assert assigned == set(declared_parameters(notebook))
