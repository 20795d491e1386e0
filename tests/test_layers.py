"""The library's layers: no import cycle, shared code never imports an experiment, experiments do not import
each other, few modules flat in lclab/, none over 300 lines. Read from the source (every import statement,
also those inside functions), so a lazy import cannot hide a cycle."""

import ast
from pathlib import Path

import networkx as nx
import pytest
from lclab.experiments import experiments
from lclab.paths import REPO

LIB = REPO / "lib"


def module_name(path: Path, lib: Path = LIB) -> str:
    parts = list(path.relative_to(lib).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(lib: Path = LIB) -> nx.DiGraph:
    """Module -> every lclab module it imports (a name imported from a package counts as the submodule
    when there is one, else as the package)."""
    files = {module_name(p, lib): p for p in lib.rglob("*.py")}
    packages = {module_name(p, lib) for p in lib.rglob("__init__.py")}
    graph = nx.DiGraph()
    for module, path in files.items():
        graph.add_node(module)
        here = module if module in packages else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            else:
                continue
            graph.add_edges_from((module, t) for t in targets if t in files and t != module)
    return graph


def experiment_folders() -> set[str]:
    return {module_name(p.parent / "__init__.py") for p in (LIB / "lclab").glob("*/experiment.py")}


def owner(module: str, folders: set[str]) -> str | None:
    return next((f for f in folders if module == f or module.startswith(f + ".")), None)


def layer_violations(graph: nx.DiGraph, folders: set[str]) -> list[str]:
    """Imports from shared code into an experiment ("upward"), and from one experiment into another."""
    out = []
    for a, b in graph.edges:
        mine, theirs = owner(a, folders), owner(b, folders)
        if theirs and mine != theirs:
            out.append(f"{'upward' if mine is None else 'across experiments'}: {a} imports {b}")
    return sorted(out)


def test_the_library_has_no_import_cycle():
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert cycles == []


def package_graph(graph: nx.DiGraph) -> nx.DiGraph:
    """The module graph with every module folded into its package under lclab (lclab.runs.runner -> lclab.runs)."""
    fold = lambda m: ".".join(m.split(".")[:2])  # noqa: E731
    return nx.DiGraph((fold(a), fold(b)) for a, b in graph.edges if fold(a) != fold(b))


def test_the_packages_import_each_other_without_a_cycle():
    cycles = [sorted(c) for c in nx.strongly_connected_components(package_graph(import_graph())) if len(c) > 1]
    assert cycles == []


def test_shared_code_imports_no_experiment_and_experiments_import_no_other():
    assert layer_violations(import_graph(), experiment_folders()) == []


def test_the_checks_catch_a_planted_cycle_and_an_upward_import(tmp_path):
    pkg = tmp_path / "lclab"
    (pkg / "exp").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "shared.py").write_text("def f():\n    from .exp.run import g\n")  # lazy, still an edge
    (pkg / "exp" / "__init__.py").write_text("")
    (pkg / "exp" / "experiment.py").write_text("")
    (pkg / "exp" / "run.py").write_text("from ..shared import f\n")
    graph = import_graph(tmp_path)
    assert [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1] == [
        ["lclab.exp.run", "lclab.shared"]]
    assert layer_violations(graph, {"lclab.exp"}) == ["upward: lclab.shared imports lclab.exp.run"]


def test_the_package_check_catches_two_packages_that_import_each_other_through_different_modules(tmp_path):
    pkg = tmp_path / "lclab"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "one.py").write_text("from ..b.two import f\n")
    (pkg / "b" / "two.py").write_text("def f():\n    pass\n")
    (pkg / "b" / "three.py").write_text("from ..a import four\n")
    (pkg / "a" / "four.py").write_text("")
    graph = import_graph(tmp_path)
    assert [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1] == []  # no module cycle
    assert [sorted(c) for c in nx.strongly_connected_components(package_graph(graph)) if len(c) > 1] == [
        ["lclab.a", "lclab.b"]]


def test_every_experiment_folder_is_registered_and_at_most_8_modules_sit_flat():
    registered = {e.name for e in experiments()}
    assert len(registered) == len(experiment_folders()) >= 8
    flat = [p.name for p in (LIB / "lclab").glob("*.py")]
    assert len(flat) <= 8, flat


def test_an_experiment_module_that_fails_to_import_fails_the_registry_loudly(tmp_path, monkeypatch):
    import lclab
    from lclab import experiments as registry

    (tmp_path / "broken_exp").mkdir()
    (tmp_path / "broken_exp" / "__init__.py").write_text("")
    (tmp_path / "broken_exp" / "experiment.py").write_text("raise KeyError('a typo in the registration')\n")
    monkeypatch.setattr(lclab, "__path__", [*lclab.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_discovered", False)
    with pytest.raises(registry.RegistrationError, match=r"lclab\.broken_exp\.experiment .*KeyError"):
        registry.experiments()
    assert registry._discovered is False  # tried again on the next lookup, never silently partial
    monkeypatch.setattr(lclab, "__path__", [p for p in lclab.__path__ if p != str(tmp_path)])
    assert len(registry.experiments()) >= 8


def test_no_module_is_over_300_lines():
    long = {str(p.relative_to(LIB)): n for p in LIB.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300}
    assert long == {}


def test_no_function_in_an_experiment_folder_is_over_60_lines():
    long = [f"{p.relative_to(LIB)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for folder in experiment_folders() for p in (LIB / folder.replace(".", "/")).rglob("*.py")
            for node in ast.parse(p.read_text(encoding="utf-8")).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60]
    assert long == []
