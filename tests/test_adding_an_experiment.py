"""docs/adding-an-experiment.md, proved: an experiment written in a folder of its own, outside lib/, with its
notebook and one registration, goes through plan, run, compare and report without touching shared code."""

import json
import sys
import textwrap

import nbformat
import pandas as pd
import pytest
import yaml
from conftest import SMALL_MODEL
from lclab import paths
from lclab.experiments import get, unregister
from lclab.runs import notebooks, report, results_page
from lclab.runs.declared import call_text, cell_text
from lclab.runs.manifest import rebuild_prompt
from lclab.runs.rescore import rescore

PARAMETERS = '''
from dataclasses import dataclass

from lclab.runs.declared import param


@dataclass
class Parameters:
    model: str = param("MODEL", "(model) answering model")
    n_items: int = param(2, "(at least 1) questions")
    run_name: str = param("toy", "results/toy_sums/<run_name>/")
'''

RUN = '''
"""A toy experiment: can the model add? Each question is one sample, scored by exact match."""

from dataclasses import asdict

import pandas as pd

from lclab.models import Request
from lclab.pipeline import Given, Stage
from lclab.runs.folders import fingerprint
from lclab.runs.runner import Run, answer_columns, headline
from lclab.runs.samples import Sample
from lclab.scoring.score import Score, unscored
from lclab.stats import wilson_interval

from .parameters import Parameters

EXPERIMENT = "toy_sums"
QUESTIONS = (("2 + 2", "4"), ("3 + 5", "8"), ("10 - 7", "3"))



def answered(given, sample, row):
    """What the stage writes into the row: its answer's columns, and the answer scored."""
    reply = ANSWER.ask(given.p, sample)
    return {**answer_columns(reply), **exact(reply.text, sample.target).columns("correct")}


# The one model-calling stage, declared once: the runner executes it, the lab's planner prices it.
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=4), prompt=lambda sample: sample.input,
               write=answered)


def prepare(p: Parameters) -> list[Sample]:
    return [Sample(id=q, input=[{"role": "user", "content": f"What is {q}? Reply with the number only."}], target=a)
            for q, a in QUESTIONS[:p.n_items]]


def exact(response: str | None, target: str) -> Score:
    if response is None:
        return unscored("no reply")
    return Score(float(response.strip().startswith(target)), answer=response.strip())


def run_toy(p: Parameters):
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p)) as run:
        items = run.stages(prepare(p), [ANSWER], Given(p), key=lambda s: (fingerprint(p.model, s.input),),
                           describe=lambda s: {"item_id": s.id, "gold": s.target})
        right = int(items["correct"].sum())
        lo, hi = wilson_interval(right, len(items))
        summary = pd.DataFrame([{"n": len(items), "accuracy": right / len(items), "lo": lo, "hi": hi}])
        return run.result(summary, items=items, headline=headline("accuracy", right / len(items), lo, hi))
'''

EXPERIMENT = '''
from pathlib import Path

from lclab.experiments import Experiment, Series, register

from .parameters import Parameters
from .run import ANSWER, EXPERIMENT, prepare, run_toy

# prepare + stages are the plan: the lab's planner walks the samples through the stages (no plan function).
register(Experiment(
    name=EXPERIMENT, notebook=str(Path(__file__).parent / "90_toy_sums.ipynb"), prepare=prepare, stages=(ANSWER,),
    run=run_toy,
    parameters=Parameters, comparable=("n_items",), series=Series(key=("item_id",), value="correct"),
    description="Can the model add?"))
'''


def write_toy(folder):
    """The toy's folder as docs/adding-an-experiment.md lists it, its notebook's cells written from its declaration."""
    package = folder / "toy_sums"
    package.mkdir()
    (package / "__init__.py").write_text("from . import experiment  # registers it\n")
    (package / "parameters.py").write_text(textwrap.dedent(PARAMETERS).replace("MODEL", SMALL_MODEL))
    (package / "run.py").write_text(textwrap.dedent(RUN))
    (package / "experiment.py").write_text(textwrap.dedent(EXPERIMENT))
    sys.path.insert(0, str(folder))
    try:
        from toy_sums.parameters import Parameters
    finally:
        sys.path.remove(str(folder))
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    nb.cells = [nbformat.v4.new_markdown_cell("# Can the model add?"),
                nbformat.v4.new_code_cell(cell_text(Parameters), metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("from toy_sums.parameters import Parameters\n"
                                          "from toy_sums.run import run_toy\n\n"
                                          + call_text("run_toy", Parameters) + "\nresult.summary")]
    nbformat.write(nb, package / "90_toy_sums.ipynb")
    return package / "90_toy_sums.ipynb"


@pytest.mark.model
@pytest.mark.slow
def test_a_toy_experiment_from_its_own_folder_plans_runs_compares_and_reports(tmp_path, monkeypatch, capsys):
    (tmp_path / "elsewhere").mkdir()
    notebook = write_toy(tmp_path / "elsewhere")
    monkeypatch.syspath_prepend(str(notebook.parent.parent))
    monkeypatch.setenv("PYTHONPATH", f"{notebook.parent.parent}:{paths.REPO / 'lib'}")  # for the kernel
    import toy_sums  # noqa: F401  (importing the folder registers the experiment)

    try:
        assert get("toy_sums").notebook_stem == "90_toy_sums"
        # 08 reads the runs of every experiment: it runs after this one, whatever their numbers.
        compare_notebook = notebooks.NOTEBOOKS / "08_compare_runs.ipynb"
        assert notebooks.run_order([compare_notebook, notebook]) == [notebook, compare_notebook]
        profile = tmp_path / "toy.yaml"
        profile.write_text(yaml.safe_dump({"90_toy_sums": {"n_items": 2, "run_name": "a"}}))

        assert notebooks.main(["--profile", str(profile), "--plan", str(notebook)]) == 0
        planned = capsys.readouterr().out
        assert "90_toy_sums" in planned and "answer" in planned
        from test_notebooks import planned_calls

        assert planned_calls(notebook, {"n_items": 2, "run_name": "a"}) == {("answer", SMALL_MODEL): 2}

        assert notebooks.main(["--profile", str(profile), str(notebook)]) == 0
        profile.write_text(yaml.safe_dump({"90_toy_sums": {"n_items": 2, "run_name": "b"}}))
        assert notebooks.main(["--profile", str(profile), str(notebook)]) == 0
        run_a = paths.RESULTS / "toy_sums" / "a"
        manifest = json.loads((run_a / "manifest.json").read_text())
        assert manifest["status"] == "finished" and manifest["trials"] == {"ran": 2, "resumed": 0, "failed_items": 0,
                                                                           "first_error": None}
        assert manifest["accounting"]["calls"] == 2  # as planned, per stage and model
        accounting = pd.read_csv(run_a / "accounting.csv").set_index("stage")
        assert accounting.loc["answer", "calls"] == 2 and accounting.loc["answer", "model"] == SMALL_MODEL
        b = json.loads((paths.RESULTS / "toy_sums" / "b" / "manifest.json").read_text())
        assert b["accounting"]["calls"] == 0  # the same prompts: every answer came from the cache
        item = json.loads((run_a / "result_items.jsonl").read_text().splitlines()[0])
        from lclab.models import prompt_sha256

        # No rebuild_prompt registered: the prompt is read back from the samples written before the run.
        assert manifest["samples"] == ["items.samples.jsonl"]
        assert prompt_sha256(rebuild_prompt(run_a, item)) == item["prompt_sha256"]

        # A rescore replays the run from the model cache: 0 calls, the same tables.
        outcome = rescore(run_a)
        assert outcome["calls"] == 0 and outcome["problems"] == [], outcome

        from lclab.compare import compare_runs

        compared = compare_runs(["toy_sums/a", "toy_sums/b"], run_name="toy")
        paired = compared.tables["paired"]
        assert list(paired["n_pairs"]) == [2] and list(paired["effect"]) == [0.0]
        assert (paths.FIGURES / "compare_toy_sums_toy.png").exists()

        page = report.build("toy").read_text()
        assert "toy_sums (90_toy_sums)" in page and "Can the model add?" in page
        written = results_page.write("", tmp_path / "results.md").read_text()
        assert "### toy_sums/a" in written and "Headline: **accuracy = " in written
    finally:
        unregister("toy_sums")
        sys.modules.pop("toy_sums", None)
