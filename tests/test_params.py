"""Notebook parameters are typed by their defaults and ranged by the rule in their comment; a bad value is
refused in one line, before any model is assembled or loaded."""

import subprocess
import sys

import pytest
from lclab.paths import REPO as REPO_ROOT
from lclab.runs.notebooks import NOTEBOOKS, declared_parameters, notebook_defaults, parameters_for
from lclab.runs.params import ParameterError, check_model_spec, check_rules
from lclab.models import Request

SWEEP = NOTEBOOKS / "01_lost_in_the_middle.ipynb"


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_every_declared_rule_is_known_and_every_default_keeps_it(notebook):
    check_rules(notebook.stem, declared_parameters(notebook))


@pytest.mark.parametrize("values, message", [
    ({"context_tokens": "abc"}, "parameter context_tokens = 'abc': must be a list like [1500]"),
    ({"context_tokens": [1500, "x"]}, "every element must be of type int, not 'x'"),
    ({"n_qa": "8"}, "parameter n_qa = '8': must be of type int (the default is 14)"),
    ({"n_qa": 0}, "parameter n_qa = 0: must be at least 1"),
    ({"max_answer_tokens": -3}, "must be at least 1"),
    ({"context_tokens": [-5]}, "-5 is not allowed; each element must be a positive number of tokens"),
    ({"depths": [0, 150]}, "150 is not allowed; each element must be within 0 to 100"),
    ({"depths": []}, "parameter depths = []: the list is empty"),
    ({"context_tokens": [40000]}, "must be at most the local context window of local/qwen2.5-coder-1.5b, 8192 tokens"),
    ({"model": "local/nope"}, "must be a usable model spec (unknown local model 'nope'"),
    ({"judge_model": "nobody/x"}, "'nobody' is neither 'local', 'openai' nor an endpoint"),
])
def test_a_bad_value_is_refused_naming_notebook_parameter_value_and_rule(values, message, monkeypatch):
    monkeypatch.delenv("LCLAB_N_CTX", raising=False)
    with pytest.raises(ParameterError) as err:
        parameters_for(SWEEP, {"01_lost_in_the_middle": values})
    text = str(err.value)
    assert text.startswith("01_lost_in_the_middle: parameter ") and "\n" not in text
    assert message in text


def test_good_values_and_a_served_models_budget_pass(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("LCLAB_N_CTX", "32768")
    assert parameters_for(SWEEP, {"01_lost_in_the_middle": {"context_tokens": [1000, 30000]}})
    assert parameters_for(SWEEP, {"01_lost_in_the_middle": {"context_tokens": [100000]}}, model="openai/gpt-4o-mini")
    assert parameters_for(NOTEBOOKS / "05_nli_answer_eval.ipynb", {"05_nli_answer_eval": {"models": []}})


def test_the_model_override_and_model_config_objects_are_checked():
    with pytest.raises(ParameterError, match="model = 'local/qwen9'"):
        parameters_for(SWEEP, {}, model="local/qwen9")
    ifeval = NOTEBOOKS / "07_rag_ifeval.ipynb"
    with pytest.raises(ParameterError, match=r"unknown field\(s\) \['top_k'\]"):
        parameters_for(ifeval, {"07_rag_ifeval": {"models": [{"model": "m", "api_base": "http://h/v1", "top_k": 1}]}})
    assert check_model_spec({"model": "m", "api_base": "http://h/v1"}) is None
    assert "choices" not in (check_model_spec("openai/gpt-4o-mini") or "")


def test_another_answering_model_keeps_the_profiles_judge_and_gets_a_run_folder_of_its_own(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    params = parameters_for(SWEEP, {"all": {"run_name": "default"}}, model="local/qwen2.5-coder-0.5b")
    assert params["model"] == "local/qwen2.5-coder-0.5b"
    assert params["judge_model"] == "local/qwen2.5-coder-1.5b"  # the notebook's own model judges, as in default
    assert params["run_name"] == "default-qwen2.5-coder-0.5b"
    named = parameters_for(SWEEP, {"01_lost_in_the_middle": {"judge_model": "openai/gpt-4o-mini"}},
                           model="local/qwen2.5-coder-0.5b")
    assert named["judge_model"] == "openai/gpt-4o-mini"  # a judge the profile names is kept


def test_run_all_refuses_a_bad_profile_in_one_line_before_any_model_is_assembled(tmp_path):
    profile = tmp_path / "bad.yaml"
    profile.write_text("01_lost_in_the_middle:\n  depths: [0, 150]\n")
    result = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", str(profile), "--models-needed"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "run_all.sh: 01_lost_in_the_middle: parameter depths = [0, 150]: 150 is not allowed; "
        "each element must be within 0 to 100"]


def test_the_plan_refuses_a_budget_smaller_than_an_answer_passage_in_one_line_naming_the_notebook(tmp_path):
    # A valid number the inputs cannot meet (the first pair's passage is longer than 100 tokens): found by the
    # plan, reported as the parameter errors are, not as a traceback.
    profile = tmp_path / "short.yaml"
    profile.write_text("01_lost_in_the_middle:\n  model: local/qwen2.5-coder-0.5b\n  context_tokens: [100]\n")
    result = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", str(profile), "--plan",
                             "01_lost_in_the_middle"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1].startswith(
        "run_all.sh: 01_lost_in_the_middle: context budget of 100 tokens is smaller than the answer document")


@pytest.mark.model
def test_the_plan_counts_calls_and_tokens_without_calling_or_loading_a_model():
    from lclab.models import ACCOUNTING
    from lclab.models.llama import LocalBackend
    from lclab.planning.experiment_plan import plan_notebook
    from lclab.planning.plan import plan_table
    from lclab.runs.notebooks import load_profile

    loaded_before = LocalBackend.loaded_models()
    rows = []
    for stem in ("01_lost_in_the_middle", "07_rag_ifeval", "05_nli_answer_eval"):
        nb = NOTEBOOKS / f"{stem}.ipynb"
        rows += plan_notebook(stem, parameters_for(nb, load_profile("smoke")), notebook_defaults(nb))
    table = plan_table(rows).set_index(["notebook", "stage"])
    assert ACCOUNTING.total_calls() == 0 and LocalBackend.loaded_models() == loaded_before  # nothing called or loaded
    assert table.loc[("01_lost_in_the_middle", "answer"), "calls"] == 2 * 3  # pairs x depths
    assert table.loc[("01_lost_in_the_middle", "answer"), "prompt_tokens"] <= 6 * 800  # within the budgets
    assert table.loc[("07_rag_ifeval", "rag_ifeval answer"), "calls"] == 2
    to_make = table[table["calls"] > table["cached"]]  # a row answered wholly from the cache (a repeat) takes no time
    assert (to_make["seconds"].dropna() > 0).all() and table.loc[("total", ""), "calls"] == table["calls"][:-1].sum()


def test_a_long_prompt_is_planned_dearer_than_short_prompts_of_the_same_total(tmp_path, monkeypatch):
    from lclab.planning.plan import DEFAULT_SPEED, row, seconds_for
    from lclab.planning.speed import SUSTAINED

    monkeypatch.setenv("LCLAB_MODEL_DIR", str(tmp_path))  # no measured record: the default speeds alone
    model = "local/qwen2.5-coder-0.5b"
    prefill, _, overhead, attention = DEFAULT_SPEED["qwen2.5-coder-0.5b"]
    one_long = seconds_for(model, 32_000, 0, 1, 32_000 ** 2)
    many_short = seconds_for(model, 32_000, 0, 32, 32 * 1_000 ** 2)
    assert one_long == pytest.approx(SUSTAINED * (32_000 * prefill * (1 + 32_000 / attention) + overhead))
    assert one_long > 3 * many_short
    # A plan row knows the lengths of the calls it has to make; the cached ones cost nothing.
    planned = row("nb", "answer", model, calls=3, cached_calls=1, prompt=33_000, completion=0,
                  todo=[(32_000, 0)])
    assert planned["seconds"] == pytest.approx(seconds_for(model, 32_000, 0, 2, 32_000 ** 2))


def test_a_measured_run_rescales_plans_without_distorting_long_against_short(tmp_path, monkeypatch):
    from lclab.planning.plan import record_throughput, seconds_for

    monkeypatch.setenv("LCLAB_MODEL_DIR", str(tmp_path))
    model = "local/qwen2.5-coder-0.5b"
    lengths = [32_000] + [500] * 100
    default = seconds_for(model, sum(lengths), 3_000, len(lengths), sum(n * n for n in lengths))
    # This machine turned out twice as slow as the defaults on that mix of one long and many short prompts:
    record_throughput(model, sum(lengths), 3_000, len(lengths), 2 * default,
                      {"prompt_tokens_sq": sum(n * n for n in lengths)})
    assert (tmp_path / "throughput.json").exists()
    for job in [(32_000, 0, 1, 32_000 ** 2), (2_000, 40, 4, 4 * 500 ** 2)]:
        with monkeypatch.context() as m:
            m.setenv("LCLAB_MODEL_DIR", str(tmp_path / "none"))
            base = seconds_for(model, *job)
        assert seconds_for(model, *job) == pytest.approx(2 * base)


def test_one_run_slowed_by_other_work_does_not_slow_later_plans(tmp_path, monkeypatch):
    from lclab.planning.plan import record_throughput, seconds_for, speed_factor
    from lclab.planning.speed import SUSTAINED

    monkeypatch.setenv("LCLAB_MODEL_DIR", str(tmp_path))
    model = "local/qwen2.5-coder-0.5b"
    job = (20_000, 400, 20, 20 * 1_000 ** 2)
    default = seconds_for(model, *job) / SUSTAINED  # at the reference's speeds (a first plan prices SUSTAINED x)
    for factor in (1.1, 1.2, 1.0, 1.15):  # four runs on a quiet machine, then one sharing the cores (6x slower)
        record_throughput(model, job[0], job[1], job[2], factor * default, {"prompt_tokens_sq": job[3]})
    record_throughput(model, job[0], 100 * job[1], 50 * job[2], 6.0 * 50 * default, {"prompt_tokens_sq": 50 * job[3]})
    factor, source = speed_factor(model)
    assert factor == pytest.approx(1.15) and source.startswith("median of 5 runs")
    assert seconds_for(model, *job) == pytest.approx(1.15 * default)  # the pooled totals would say about 5x


def test_run_all_has_a_plan_option():
    result = subprocess.run([str(REPO_ROOT / "run_all.sh"), "--help"], capture_output=True, text=True, timeout=30)
    assert "--plan" in result.stdout


@pytest.mark.model
def test_the_plan_charges_only_what_a_prompt_does_not_share_with_the_one_before(tmp_path, monkeypatch):
    from lclab.planning.plan import planned_answers  # loads the model's vocabulary only

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))  # nothing cached
    model = "local/qwen2.5-coder-0.5b"
    documents = " ".join(f"Document {i} says the river crossing {i} opens at dawn." for i in range(200))
    prompts = [documents + "\nQuestion: when does crossing 7 open?", documents + "\nQuestion: when does crossing 9 open?"]
    fresh = planned_answers("nb", "answer", model, prompts, Request(max_tokens=8))[0]
    reused = planned_answers("nb", "answer", model, prompts, Request(max_tokens=8), reuse_prefix=True)[0]
    assert fresh["prompt_tokens"] == reused["prompt_tokens"] > 2 * 2_000  # the same tokens are sent ...
    assert reused["seconds"] < 0.7 * fresh["seconds"]  # ... but the second prompt's documents are not read again


@pytest.mark.parametrize("spec, problem", [
    ("openai/gpt-4o-mini", "needs an API key: export OPENAI_API_KEY"),
    ("openai/fake@http//127.0.0.1:8000/v1", "'http//127.0.0.1:8000/v1' is not an http(s)://host[:port]/... URL"),
    ("openai/fake@http:///v1", "is not an http(s)://host[:port]/... URL"),
    ("openai/fake@http://127.0.0.1:99999/v1", "'http://127.0.0.1:99999/v1' has a port outside 1-65535"),
    ("openai/fake@http://user:secret@127.0.0.1:99999/v1", "'http://127.0.0.1:99999/v1' has a port"),
])
def test_a_served_model_that_cannot_work_is_refused_before_any_work(spec, problem):
    from lclab.runs.params import check_model_spec

    found = check_model_spec(spec)
    assert found is not None and problem in found and "secret" not in found


def test_a_served_model_with_a_url_or_a_key_passes(monkeypatch):
    from lclab.runs.params import check_model_spec

    assert check_model_spec("openai/m@http://127.0.0.1:8000/v1") is None  # a local server needs no key
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert check_model_spec("openai/gpt-4o-mini") is None


@pytest.mark.parametrize("name, content, problem", [
    ("empty.csv", b"", "the file is empty"),
    ("latin1.csv", "question,answer,validated\nQui a écrit?,Moi,yes\n".encode("latin-1"),
     "line 2, column 7 is not UTF-8 (byte 0xe9): save the file as UTF-8"),
    ("header.csv", b"question,answer,validated\n", "the CSV has a header and no rows"),
    ("cut.json", b'[{"id": "1", "question": "Q?"}, {"id": "2", "quest', "line 1, column 45: not valid JSON"),
])
def test_a_bad_data_file_is_named_with_its_line_before_anything_loads(tmp_path, name, content, problem):
    path = tmp_path / name
    path.write_bytes(content)
    notebook, parameter = (("07_rag_ifeval", "eval_path") if name.endswith(".json")
                           else ("01_lost_in_the_middle", "qa_path"))
    nb = NOTEBOOKS / f"{notebook}.ipynb"
    with pytest.raises(ParameterError) as err:
        parameters_for(nb, {notebook: {parameter: str(path)}})
    assert problem in str(err.value) and str(path) in str(err.value) and "\n" not in str(err.value)


def test_a_missing_data_file_is_named(tmp_path):
    with pytest.raises(ParameterError, match=r"qa_path = .*: no such file"):
        parameters_for(SWEEP, {"01_lost_in_the_middle": {"qa_path": str(tmp_path / "nope.csv")}})


def test_a_broken_endpoint_url_is_refused_in_one_line_not_a_traceback():
    result = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", "smoke", "--models-needed",
                             "--model", "openai/m@http://user:pw@[::1/v1", "01_lost_in_the_middle"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "malformed" in result.stderr and "pw" not in result.stderr


def test_a_url_password_and_a_bearer_key_are_refused_together_naming_both(monkeypatch):
    from lclab.models import backend_for
    from lclab.models.errors import MissingAPIKeyError
    from lclab.runs.params import check_model_spec

    spec = "openai/m@http://user:secret-pw@127.0.0.1:9/v1"
    monkeypatch.delenv("API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert check_model_spec(spec) is None  # the URL's basic auth alone is fine
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary")
    problem = check_model_spec(spec)
    assert "user:password" in problem and "OPENAI_API_KEY" in problem
    assert "secret-pw" not in problem and "sk-canary" not in problem
    with pytest.raises(MissingAPIKeyError, match="one Authorization header") as err:
        backend_for(spec)
    assert "secret-pw" not in str(err.value)
