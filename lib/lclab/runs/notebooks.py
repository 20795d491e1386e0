"""Execute the notebooks with papermill under a named parameter profile.

    python -m lclab.runs.notebooks --profile smoke [--model SPEC] [NOTEBOOK ...]

A profile is `params/<name>.yaml`: notebook name (file stem) -> its parameters, an optional `all` entry for every
notebook that declares those parameters, and an optional `env` entry of environment variables. Unlike papermill, a
parameter a notebook does not declare is an error (a typo must not silently run defaults), and every value is
checked against its declaration (`lclab.runs.params`) before any model is assembled or loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import yaml

from .. import paths
from ..models.cache import check_writable
from ..models.errors import CacheError, ContextLengthError
from ..models.specs import scrub
from ..paths import PARAMS, REPO
from .kernels import INTERRUPTED, interrupted, on_interrupt, quiet_kernel
from .manifest import NOTEBOOK_ENV, failed_runs_since, terminal_notes_since
from .naming import executed_dir, model_slug, without_credentials
from .params import ParameterError, check_all, literal
from .preflight import judge_is_answerer, models_to_load, one_line_warnings, still_to_fetch
from .progress import Watch

NOTEBOOKS = REPO / "notebooks"


class UnknownParameterError(ParameterError):
    """A parameter the notebook does not declare."""


def declared_parameters(notebook: Path) -> dict[str, dict]:
    """The notebook's parameters: its experiment's declaration (lclab.runs.declared) where it has one, which
    tests/test_parameters_declared.py keeps equal to the notebook's cell; else the cell, as papermill reads it."""
    from ..experiments import for_notebook
    from .declared import as_inspected

    experiment = for_notebook(notebook.stem)
    if experiment is not None and experiment.parameters is not None:
        return as_inspected(experiment.parameters)
    import papermill

    return papermill.inspect_notebook(str(notebook))


def notebook_defaults(notebook: Path) -> dict:
    """Every parameter the notebook declares, with its default value."""
    return {name: literal(info["default"]) for name, info in declared_parameters(notebook).items()}


def run_order(notebooks: list[Path]) -> list[Path]:
    """Experiments in notebook order, then the notebooks that run none (08's comparison, which reads the others'
    runs): an experiment numbered after 08 is compared in the same round."""
    from ..experiments import for_notebook

    return sorted(notebooks, key=lambda nb: for_notebook(nb.stem) is None)


def load_profile(name: str) -> dict:
    """params/<name>.yaml, or a YAML file given by its path."""
    as_path = name.endswith((".yaml", ".yml")) or "/" in name
    path = Path(name) if as_path else PARAMS / f"{name}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in PARAMS.glob("*.yaml") if p.stem != "endpoints")
        where = "no such file" if as_path else f"params/{name}.yaml"
        raise FileNotFoundError(f"no parameter profile {name!r} ({where}); known: {known}")
    return yaml.safe_load(path.read_text()) or {}


def parameters_for(notebook: Path, profile: dict, model: str | None = None) -> dict:
    """The profile's parameters for one notebook; unknown names raise UnknownParameterError."""
    declared = declared_parameters(notebook)
    shared = {k: v for k, v in (profile.get("all") or {}).items() if k in declared}
    own = profile.get(notebook.stem) or {}
    unknown = sorted(set(own) - set(declared))
    if unknown:
        raise UnknownParameterError(
            f"{notebook.name} has no parameter(s) {unknown}; it declares {sorted(declared)}")
    params = {**shared, **own}
    if model and "judge_model" in declared and not params.get("judge_model") and "model" in declared:
        # The judge stays the profile's model: a run with another answering model is compared with the
        # profile's run, and a model judging its own answers would change the ruler along with the thing
        # measured (the 0.5B model judged its own answers far more leniently than the 1.5B did).
        params["judge_model"] = params.get("model", literal(declared["model"]["default"]))
    if model and "model" in declared:
        params["model"] = model
    if model and "models" in declared:  # notebooks that compare models run just this one
        params["models"] = [model]
    if model and "run_name" in declared and ("model" in declared or "models" in declared):
        # Another model's run gets a folder of its own, so the profile's run is not overwritten.
        base = params.get("run_name", literal(declared["run_name"]["default"]))
        params["run_name"] = f"{base}-{model_slug(model)}"
    check_all(notebook.stem, declared, params)
    return {name: without_credentials(value) for name, value in params.items()}


def local_models_needed(plans: list[tuple[Path, dict]]) -> list[str]:
    """Embedded model names (or .gguf paths) that the planned runs will load (preflight.models_to_load)."""
    return models_to_load(notebook_defaults(notebook) | params for notebook, params in plans)


def execute(notebook: Path, params: dict, output: Path) -> float:
    """Run one notebook; returns wall seconds. Raises papermill's error if a cell fails."""
    import papermill

    declared = declared_parameters(notebook)
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise UnknownParameterError(f"{notebook.name} has no parameter(s) {unknown}")
    check_all(notebook.stem, declared, params)
    output.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    # The kernel inherits this: its runs record which notebook made them, with what (for a rescore).
    os.environ[NOTEBOOK_ENV] = json.dumps({"notebook": notebook.stem, "parameters": params}, default=str)
    kernel = quiet_kernel(output.with_name(f"{notebook.stem}.kernel.log"))
    try:
        papermill.execute_notebook(str(notebook), str(output), parameters=params, cwd=str(NOTEBOOKS),
                                   kernel_name="python3", progress_bar=False, log_output=False, **kernel)
    finally:
        os.environ.pop(NOTEBOOK_ENV, None)
        shutil.rmtree(Path(kernel["config"].KernelManager.ip).parent, ignore_errors=True)  # its socket folder
    return time.perf_counter() - started


def notebook_design(notebook: Path, params: dict, target: float = 0.10) -> str | None:
    """What the run's n can show, before it runs (lclab.planning.design), or None for a notebook with no design."""
    from ..planning.design import design_line

    return design_line(notebook.stem, notebook_defaults(notebook) | params, target)


def print_plan(plans: list[tuple[Path, dict]], profile: str, target: float = 0.10) -> None:
    """The plan of every notebook (lclab.planning.plan), as a table and a line of totals."""
    import pandas as pd

    from ..planning import machine
    from ..planning.design import labels_line
    from ..planning.experiment_plan import plan_notebook
    from ..planning.plan import new_plan, plan_scope, plan_table, shown_plan, speed_factor

    machine.ensure_for(local_models_needed(plans))  # this machine's numpy figures, for models not probed yet
    new_plan()
    with plan_scope():  # one profile: a call one notebook prices is a cache hit for the next
        rows = []
        for nb, params in plans:
            try:  # inputs a parameter cannot meet (a budget smaller than a passage): one line naming the notebook
                rows += plan_notebook(nb.stem, params, notebook_defaults(nb))
            except (ValueError, ContextLengthError) as err:
                raise ParameterError(f"{nb.stem}: {err}") from err
    table = plan_table(rows)
    with pd.option_context("display.max_rows", 200, "display.width", 160, "display.max_colwidth", 40):
        print(f"plan of profile {profile!r} (no model was called; seconds: this machine's speeds, named below; "
              "cost: params/prices.yaml)")
        print(shown_plan(table).to_string(index=False))
    for model in sorted({r["model"] for r in rows if str(r["model"]).startswith("local/")}):
        print(f"  seconds for {model}: {speed_factor(model)[1]}")
    for model in sorted({r["model"] for r in rows if pd.isna(r["seconds"])}):
        calls = sum(r["calls"] - r["cached"] for r in rows if r["model"] == model)
        print(f"  seconds for {model}: not known before it runs (its server's hardware decides); the total "
              f"leaves out its {calls} calls")
    for model in sorted({r["model"] for r in rows if pd.isna(r["cost_usd"])}):
        print(f"  cost for {model}: no price in params/prices.yaml (add the spec or its served name, e.g. "
              f"0 for a server of your own)")
    designs = [line for nb, params in plans if (line := notebook_design(nb, params, target))]
    # how wide each judged rate is once corrected by 30, 60, 120 labels
    designs += [line for nb, params in plans if (line := labels_line(nb.stem, notebook_defaults(nb) | params))]
    if designs:
        print("\ndesign (what each run's n can show, before it runs):")
        print("\n".join(f"  {line}" for line in designs))
    if line := still_to_fetch(local_models_needed(plans)):
        print(f"\n{line}")


def main(argv: list[str] | None = None) -> int:
    one_line_warnings()
    parser = argparse.ArgumentParser(prog="python -m lclab.runs.notebooks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="default",
                        help="params/<profile>.yaml, or a path to a .yaml file (default: default)")
    parser.add_argument("--model", help="model spec for every notebook's `model` parameter")
    parser.add_argument("--models-needed", action="store_true",
                        help="print the embedded models the run would load, and exit")
    parser.add_argument("--plan", action="store_true",
                        help="print calls, tokens, cache hits and estimated time or cost per notebook and stage, "
                             "without calling or loading a model, and exit")
    parser.add_argument("--target", type=float, default=0.10,
                        help="with --plan: the 95 %% half-width a comparison should reach (default 0.10)")
    parser.add_argument("notebooks", nargs="*", help="notebook files or stems (default: all, in order)")
    args = parser.parse_args(argv)

    chosen = run_order([Path(n) if n.endswith(".ipynb") else NOTEBOOKS / f"{n}.ipynb" for n in args.notebooks]
                       or sorted(NOTEBOOKS.glob("[0-9]*.ipynb")))
    missing = [str(nb) for nb in chosen if not nb.exists()]
    # Every notebook's parameters are checked before any runs: a typo in the last must not surface an hour in.
    try:
        if missing:
            raise FileNotFoundError(f"no notebook {', '.join(missing)}")
        profile = load_profile(args.profile)
        # A profile may set environment variables the runs need (e.g. LCLAB_N_CTX for a long window): the
        # kernels inherit them, and the parameter checks below already see them.
        os.environ.update({k: str(v) for k, v in (profile.get("env") or {}).items()})
        plans = [(nb, parameters_for(nb, profile, args.model)) for nb in chosen]
        if not args.models_needed:
            check_writable(paths.llm_cache_dir())
    except (ParameterError, FileNotFoundError, yaml.YAMLError, CacheError) as err:
        print(f"run_all.sh: {scrub(str(err))}", file=sys.stderr)  # a quoted spec may hold a password
        return 2
    if args.models_needed:
        print(" ".join(local_models_needed(plans)))
        return 0
    for nb, params in plans:
        if line := judge_is_answerer(nb.stem, declared_parameters(nb), params):
            print(f"warning: {line}", file=sys.stderr)
    if args.plan:
        try:
            print_plan(plans, Path(args.profile).stem, args.target)
        except (ParameterError, ContextLengthError) as err:  # a length the inputs or the window cannot hold
            print(f"run_all.sh: {scrub(str(err))}", file=sys.stderr)
            return 2
        return 0
    on_interrupt()  # this process says what an interrupt did, in one line
    timings, failed, refused, with_copy = [], [], [], []
    # Executed copies go beside the profile's, not over them: a --model run is a run of its own.
    executed = executed_dir(args.profile, args.model)
    watch = Watch(plans, notebook_defaults)  # each notebook's plan, for its live line of calls and time left
    for nb, params in plans:
        output = executed / nb.name
        # Executed under a name of this process's own, and moved into place when done: a second process refused
        # for a run folder in use must not write its error notebook over the running one's.
        working = output.with_name(f".{output.stem}.{os.getpid()}.ipynb")
        print(f"== {nb.name}  {params}", flush=True)
        if line := notebook_design(nb, params):
            print(f"   {line}", flush=True)
        started = time.time()
        try:
            with watch.notebook(nb.stem, working.with_suffix(".calls")):
                seconds = execute(nb, params, working)
        except KeyboardInterrupt:
            return interrupted(nb, working, output)
        except Exception as err:  # noqa: BLE001  (report, keep going with the other notebooks)
            failed.append(nb.name)
            # papermill's error carries the cell's exception: its type and message first, in one line (the
            # coloured traceback is in the executed notebook).
            kind, message = getattr(err, "ename", type(err).__name__), getattr(err, "evalue", str(err))
            if kind == "KeyboardInterrupt" or INTERRUPTED.is_set():  # Ctrl-C; the kernel may be gone
                return interrupted(nb, working, output)
            if kind in ("RunLockedError", "RunFolderError"):  # it never started: its last executed copy stays
                failed.pop()
                refused.append(nb.name)
                working.unlink(missing_ok=True)
                print(f"!! {nb.name} refused: {message}", file=sys.stderr)
                continue
            if working.exists():
                os.replace(working, output)
                with_copy.append(nb.name)
            print(f"!! {nb.name} failed: {kind}: {str(message)[:2000]} (traceback in {output})", file=sys.stderr)
            continue
        os.replace(working, output)
        if problems := failed_runs_since(started):
            failed.append(nb.name)
            with_copy.append(nb.name)
            print("\n".join(f"!! {nb.name}: {line}" for line in problems), file=sys.stderr)
        timings.append((nb.name, seconds))
        print("".join(f"   {line}\n" for line in terminal_notes_since(started)), end="")
        print(f"   done in {seconds:.0f} s -> {output.relative_to(REPO) if output.is_relative_to(REPO) else output}")
    summary = executed / "timings.tsv"
    summary.parent.mkdir(parents=True, exist_ok=True)
    # Keep the times of notebooks this invocation did not run (e.g. a rerun of one notebook).
    earlier = dict(line.split("\t") for line in summary.read_text().splitlines() if "\t" in line) \
        if summary.exists() else {}
    earlier.update({name: f"{sec:.1f}" for name, sec in timings})
    summary.write_text("".join(f"{name}\t{sec}\n" for name, sec in sorted(earlier.items())))
    print("\n".join(f"{name:40s} {sec:8.0f} s" for name, sec in timings))
    if refused:  # not "failed": nothing of theirs ran
        print(f"refused (not started, earlier executed copies kept): {', '.join(refused)}", file=sys.stderr)
    if failed:
        where = f" (executed copies of {', '.join(with_copy)} are in {executed})" if with_copy else ""
        print(f"failed: {', '.join(failed)}{where}", file=sys.stderr)
        return 1
    return 2 if refused and not timings else 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
