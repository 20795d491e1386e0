"""The kernel the runner starts (lclab.runs.kernels): its garbage collector's threshold is the one the runner sets,
and its log goes to the file named for it."""

import json

import nbformat
from lclab.runs.kernels import GC_THRESHOLD
from lclab.runs.notebooks import execute


def test_a_notebooks_kernel_collects_cycles_at_the_runners_threshold(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import gc; print(gc.get_threshold())")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "gc.ipynb").write_text(nbformat.writes(notebook))
    execute(tmp_path / "gc.ipynb", {}, tmp_path / "out" / "gc.ipynb")
    printed = json.loads((tmp_path / "out" / "gc.ipynb").read_text())["cells"][0]["outputs"][0]["text"]
    assert "".join(printed).strip() == f"({GC_THRESHOLD})"
    assert (tmp_path / "out" / "gc.kernel.log").exists()
