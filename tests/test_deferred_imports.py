"""lclab defers rfc3987_syntax (jsonschema's optional IRI checker, which builds a Lark parser at import) to its
first use: papermill and chromadb import without building it, and an IRI format check still runs the real one.
The experiment registry, which every runner, plan and report loads, imports no plotting library."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_registry_loads_every_experiment_without_a_plotting_library():
    probe = ("import sys; from lclab.experiments import experiments; print(len(experiments()), "
             "sorted(m for m in ('matplotlib', 'seaborn', 'lclab.figures') if m in sys.modules))")
    n, loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                               env={"PYTHONPATH": str(REPO / "lib"), "PATH": ""}).stdout.split(" ", 1)
    assert int(n) >= 9 and loaded.strip() == "[]", loaded  # figures load in the notebook that draws them (~1.3 s)


PROBE = """
import sys
import lclab, papermill
built_at_import = "lark" in sys.modules
from jsonschema import FormatChecker
checker = FormatChecker()
print(built_at_import, checker.conforms("http://example.org/\\u00e4", "iri"), checker.conforms("http://x y", "iri"),
      getattr(sys.modules["rfc3987_syntax"], "__lclab_deferred__", False))
"""


def test_papermill_imports_without_building_the_iri_parser_and_an_iri_check_still_runs_the_real_one():
    pytest.importorskip("rfc3987_syntax")
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO / "lib"), "PATH": ""}).stdout.split()
    # no parser built at import; a valid and an invalid IRI told apart; the stand-in gave way to the real module
    assert out == ["False", "True", "False", "False"], out
