"""An experiment's parameters, declared once: a dataclass in its folder (`parameters.py`), each field with its
default and the help its notebook shows, the rule first in brackets as `lclab.runs.params` reads it.

    @dataclass
    class Parameters:
        model: str = param("local/qwen2.5-coder-0.5b", "(model) answering model")
        n_items: int = param(20, "(at least 1) questions")

From it: the notebook's parameters cell (`cell_text`) and the call of its run function (`with_call`: every
parameter by name), both written by `python -m lclab.runs.declared --write` and checked by
tests/test_parameters_declared.py; the parameter checks and the plan (`runs.notebooks.
declared_parameters` reads the declaration of a registered experiment before the notebook).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import sys
from typing import Any, Callable


def param(default: Any, help: str) -> Any:
    """A declared parameter: its default (copied per instance when it is a list or dict) and its help."""
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata={"help": help})
    return dataclasses.field(default=default, metadata={"help": help})


# The two parameters of every judged experiment (01, 02, 06), declared once: who judges and how many shipped
# labelled texts its card reads (lclab.models.judge_choice, lclab.scoring.judge_card).
JUDGE_MODEL = param("", "(model or \"\") judge model spec; \"\" means the strongest embedded model, never the "
                        "answering model where another as strong is embedded (the 1.5B judges itself and says "
                        "\"self-judged\")")
CARD_TEXTS = param(0, "(at least 0) shipped labelled texts per judged kind the judge reads for its card "
                      "(data/judge_labels, data/nli_eval; kept per judge in ~/.cache/lclab/judge_cards); 0 means all")


def declared(declaration: type, values: dict) -> Any:
    """The declaration filled from a plan's parameters dict (its declared names; anything else is not its)."""
    names = {f.name for f in dataclasses.fields(declaration)}
    return declaration(**{k: v for k, v in values.items() if k in names})


def source(value: Any) -> str:
    """A default as the notebook's cell writes it: strings in double quotes, lists and dicts spelled out."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(source(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{source(k)}: {source(v)}" for k, v in value.items()) + "}"
    return repr(value)


def fields(declaration: type) -> list[tuple[str, Any, str]]:
    """(name, default, help) of every declared parameter, in order."""
    made = declaration()
    return [(f.name, getattr(made, f.name), f.metadata.get("help", "")) for f in dataclasses.fields(declaration)]


def cell_text(declaration: type) -> str:
    """The notebook's parameters cell for this declaration, line for line."""
    return "\n".join(f"{name} = {source(default)}  # {help}" for name, default, help in fields(declaration))


def call_text(function: str, declaration: type, width: int = 118, wrapped: bool = True) -> str:
    """The notebook's call of its run function: `result = function(Parameters(name=name, ...))`, every declared
    parameter by name in declaration order, wrapped at `width` under the opening bracket (`wrapped=False`: the
    parameters passed to the function itself, for a run function that takes them loose, as 07's does)."""
    head = f"result = {function}(Parameters(" if wrapped else f"result = {function}("
    close = "))" if wrapped else ")"
    args, lines = [f"{name}={name}" for name, _, _ in fields(declaration)], []
    line = head
    for i, arg in enumerate(args):
        piece = arg + ("," if i < len(args) - 1 else close)
        if len(line) + len(piece) > width and line.strip() not in ("", head.strip()):
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece + (" " if i < len(args) - 1 else "")
    return "\n".join([*lines, line])


def takes_parameters(function: Callable) -> bool:
    """True for a run function whose one argument is its experiment's `Parameters`."""
    import inspect

    takes = list(inspect.signature(function).parameters.values())
    return len(takes) == 1 and str(takes[0].annotation).rpartition(".")[2] == "Parameters"


def with_call(cell_source: str, declaration: type) -> str:
    """A notebook's call cell with its `result = run_...(Parameters(...))` statement written from the declaration
    (the import of `Parameters` added beside the function's; whatever else the cell holds kept)."""
    import ast
    import importlib

    body = ast.parse(cell_source).body
    for node in body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and [getattr(t, "id", None) for t in node.targets] == ["result"]):
            name = ast.unparse(node.value.func)
            source = next(n.module for n in body if isinstance(n, ast.ImportFrom) and name in [a.name for a in n.names])
            wrapped = takes_parameters(getattr(importlib.import_module(source), name))
            lines = cell_source.split("\n")
            call = call_text(name, declaration, wrapped=wrapped)
            lines = [*lines[:node.lineno - 1], call, *lines[node.end_lineno:]]
            needed = f"from {declaration.__module__} import Parameters"
            if wrapped and needed not in lines:
                at = next(n.end_lineno for n in body if isinstance(n, ast.ImportFrom) and n.module == source)
                lines.insert(at, needed)
            return "\n".join(lines)
    raise ValueError("the notebook has no `result = run_...(...)` cell to write")


def as_inspected(declaration: type) -> dict[str, dict]:
    """The declaration in the shape papermill's inspect_notebook gives (default as source text, help)."""
    return {name: {"name": name, "default": source(default), "help": help, "inferred_type_name": "None"}
            for name, default, help in fields(declaration)}


def write_cells() -> list[str]:
    """Write every registered experiment's parameters cell from its declaration; the notebooks changed."""
    import nbformat

    from ..experiments import experiments
    from ..paths import REPO

    changed = []
    for experiment in experiments():
        if experiment.parameters is None:
            continue
        path = REPO / "notebooks" / f"{experiment.notebook_stem}.ipynb"
        nb = nbformat.read(path, as_version=4)
        cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
        call = next(c for c in nb.cells if c.cell_type == "code" and "\nresult = " in c.source)
        written = cell_text(experiment.parameters), with_call(call.source, experiment.parameters)
        if (cell.source, call.source) != written:
            cell.source, call.source = written
            nbformat.write(nb, path)
            changed.append(path.name)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write the notebooks' parameters and call cells")
    args = parser.parse_args(argv)
    if args.write:
        print("written: " + (", ".join(write_cells()) or "none (every cell matches its declaration)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
