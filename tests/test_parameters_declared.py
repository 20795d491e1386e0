"""Each experiment's parameters are declared once (lclab.runs.declared): its notebook's parameters cell is that
declaration written out, and the checks and the plan read the declaration."""

import dataclasses

import nbformat
import pytest
from lclab.experiments import experiments
from lclab.runs.declared import as_inspected, call_text, cell_text, param, takes_parameters, with_call
from lclab.runs.notebooks import NOTEBOOKS, declared_parameters

DECLARED = [e for e in experiments() if e.parameters is not None]


def test_every_registered_experiment_declares_its_parameters():
    assert {e.name for e in experiments()} == {e.name for e in DECLARED}


@pytest.mark.parametrize("experiment", DECLARED, ids=lambda e: e.name)
def test_the_notebook_cell_is_the_declaration_written_out(experiment):
    nb = nbformat.read(NOTEBOOKS / f"{experiment.notebook_stem}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert cell.source == cell_text(experiment.parameters), (
        f"{experiment.notebook_stem}'s parameters cell differs from {experiment.parameters.__module__}: change the "
        "declaration, then run .venv/bin/python -m lclab.runs.declared --write")


@pytest.mark.parametrize("experiment", DECLARED, ids=lambda e: e.name)
def test_the_call_cell_passes_every_declared_parameter_by_name_and_the_run_function_takes_each(experiment):
    import ast
    import importlib
    import inspect

    nb = nbformat.read(NOTEBOOKS / f"{experiment.notebook_stem}.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "\nresult = " in c.source)
    assert cell.source == with_call(cell.source, experiment.parameters), (
        f"{experiment.notebook_stem}'s call cell differs from its declaration: run "
        ".venv/bin/python -m lclab.runs.declared --write")
    imported = next(n for n in ast.parse(cell.source).body if isinstance(n, ast.ImportFrom))
    call = next(n.value for n in ast.parse(cell.source).body if isinstance(n, ast.Assign))
    function = getattr(importlib.import_module(imported.module), call.func.id)
    takes = inspect.signature(function).parameters
    assert len(takes) <= 6, f"{call.func.id} takes {len(takes)} arguments: give it the experiment's Parameters"
    if takes_parameters(function):  # run_x(Parameters(name=name, ...)): the declaration is the one argument
        (inner,) = call.args
        assert inner.func.id == "Parameters" and not call.keywords
        keywords = [k.arg for k in inner.keywords]
    else:  # 07's run_models takes its models and passes the options on to its Options
        keywords = [k.arg for k in call.keywords]
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in takes.values())
    assert keywords == [f.name for f in dataclasses.fields(experiment.parameters)]


def test_the_call_is_wrapped_under_its_bracket():
    @dataclasses.dataclass
    class Toy:
        alpha_parameter: int = param(1, "a")
        beta_parameter: int = param(2, "b")
        gamma: int = param(3, "c")

    assert call_text("run_toy", Toy, width=60) == ("result = run_toy(Parameters(alpha_parameter=alpha_parameter,\n"
                                                   "                            beta_parameter=beta_parameter,\n"
                                                   "                            gamma=gamma))")
    assert call_text("run_toy", Toy, width=60, wrapped=False) == (
        "result = run_toy(alpha_parameter=alpha_parameter,\n"
        "                 beta_parameter=beta_parameter, gamma=gamma)")


@pytest.mark.parametrize("experiment", DECLARED, ids=lambda e: e.name)
def test_papermill_reads_the_cell_as_the_declaration_says(experiment):
    import papermill

    read = papermill.inspect_notebook(str(NOTEBOOKS / f"{experiment.notebook_stem}.ipynb"))
    declared = declared_parameters(NOTEBOOKS / f"{experiment.notebook_stem}.ipynb")
    assert {k: (v["default"], v["help"]) for k, v in read.items()} == {
        k: (v["default"], v["help"]) for k, v in declared.items()}


def test_a_changed_default_shows_in_the_cell_text():
    @dataclasses.dataclass
    class Toy:
        n_items: int = param(20, "(at least 1) questions")
        names: list = param(["a", "b"], "which")

    assert cell_text(Toy) == 'n_items = 20  # (at least 1) questions\nnames = ["a", "b"]  # which'
    assert as_inspected(Toy)["names"]["default"] == '["a", "b"]'
    assert Toy().names is not Toy().names  # a list default is copied per instance
