"""Each experiment's parameters are declared once (lclab.runs.declared): its notebook's parameters cell is that
declaration written out, and the checks and the plan read the declaration."""

import dataclasses

import nbformat
import pytest
from lclab.experiments import experiments
from lclab.runs.declared import as_inspected, cell_text, param
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
