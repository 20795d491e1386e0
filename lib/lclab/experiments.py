"""The registry of experiments: each experiment folder registers one `Experiment`, and the shared code (the
planner, the comparison, the manifest, the report) asks the registry instead of naming any experiment.

    # lib/lclab/<folder>/experiment.py
    EXPERIMENT_SPEC = register(Experiment(name="my_experiment", notebook="10_my_experiment", plan=plan, ...))

    get("my_experiment")            # by the name its runs are filed under (results/<name>/<run>/)
    for_notebook("10_my_experiment") # by its notebook's file stem
    experiments()                   # every registered one

An experiment folder is found by having an `experiment.py`; importing it registers the object (see
docs/adding-an-experiment.md). Nothing here imports an experiment by name.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pandas as pd


@dataclass(frozen=True)
class Series:
    """How runs of an experiment are compared: what an item is, which value is compared, how rows split.

    key:      the columns that name one item (the same item in two runs is paired on them)
    value:    the compared column (yes/no when `binary`, else a score)
    split:    columns that split one run's rows into several series (methods, models, prompts)
    x:        the column along the comparison figure's x axis (None: one cell per series)
    x_label:  that axis's label
    label:    a gold-label column: the series are then compared by ROC AUC of `value` against it
    prepare:  rows -> rows, applied to a run's item rows before anything is compared (derive `value`,
              drop items that cannot be scored)
    cells:    rows -> [(x, values)], when a series' summary is not one cell per value of `x`
    cluster:  the column naming each item's independent unit (a QA pair, an answer, a sample): intervals and
              tests resample and test at that level (lclab.stats.clusters); None: items are independent
    unit:     what a cluster is, plural, for the reader ("QA pairs")
    value_label: what the compared value is, for the comparison figure's y axis ("judge accuracy")
    labels:   (label file under data/judge_labels/, the item columns a label is filed under) when `value` is a
              judge's verdict that labels can correct: two runs judged by the same judge are then also compared
              by the difference of their PPI++ estimates (lclab.stats.corrected.corrected_difference)
    """

    key: tuple[str, ...]
    value: str
    split: tuple[str, ...] = ()
    x: str | None = None
    x_label: str = ""
    binary: bool = True
    label: str | None = None
    prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    cells: Callable[[pd.DataFrame], list[tuple[Any, pd.Series]]] | None = None
    cluster: str | None = None
    unit: str = "items"
    value_label: str = ""
    labels: tuple[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Design:
    """What a run's primary comparison will rest on: `units` independent clusters (named `unit`) of
    `items_per_unit` items each; the comparison is `contrast` = (column, a, b): rows where column is a minus
    rows where it is b, paired by cluster (how an earlier run's variance is read)."""

    units: int
    unit: str
    items_per_unit: int
    comparison: str
    contrast: tuple[str, Any, Any]


@dataclass(frozen=True)
class SampleSet:
    """Samples a run asks through some of its stages, as the generic planner walks them: an experiment whose run
    asks several sets (01's sweep, multi-needle trials and closed-book arm; 09's reply budgets) registers
    `sample_sets`.

    labels:    each stage's plan-row name, where several sets ask the same gateway stage (None: the stage's own)
    in_order:  the run sends this set's first prompts one at a time in this order, so a local model's KV cache
               keeps the prefix each shares with the one before (the plan prices that reuse)
    held:      instead, per sample, what the model read just before its first call (02: another set's prompt)
    repeated:  the share of its first stage's calls that are calls of a set planned before (02's Self-Route
               asks RAG's own prompt first): cache hits by the time it runs
    """

    samples: list
    stages: tuple
    labels: tuple[str, ...] | None = None
    in_order: bool = True
    held: list | None = None
    repeated: float = 0.0


@dataclass(frozen=True)
class Experiment:
    """One experiment: everything shared code needs to know of it, owned by its folder.

    name:            what its runs are filed under: results/<name>/<run_name>/, figures/<name>_<run_name>.png
    notebook:        its notebook's file stem under notebooks/ (or a path to the .ipynb)
    plan:            (notebook, parameters) -> plan rows (lclab.planning.plan.row), without a model call
    comparable:      the parameters two runs must share to be compared (None: its runs are never compared)
    series:          how its runs are compared (None: not at all)
    rebuild_prompt:  (manifest parameters, item row) -> the exact prompt that item's answering call sent
    design:          parameters -> Design: the independent units a run will have, for `--plan` to say before
                     the run what its n can show
    parameters:      its parameters' declaration (a dataclass, lclab.runs.declared): the notebook's parameters
                     cell is written from it, the checks and the plan read it
    prepare:         Parameters -> the Samples a run answers, before any call; the run and the plan both call it
                     (01, 02, 03, 07, 09; 03's before retrieval, its contexts what retrieval
                     will find). None where the samples are made of earlier replies (00's and 06's generated
                     questions, 04's facts, 05's rewritten hypotheses): there the run and
                     the plan share the code that reads the inputs (e.g. 06's `inputs`), and the plan prices the
                     later samples by their templates
    judged_rate:     the reliability-card metric of its headline judged rate ("answer correct (01)"), for
                     `--plan` to say how wide that rate's corrected interval is with 0, 30, 60, 120 labels
    run:             Parameters -> Result: the run its notebook makes (the plumbing tests call it in-process, on
                     the fake model, beside its plan)
    stages:          its model-calling stages (lclab.pipeline.Stage), in order: with `prepare`, all the generic
                     planner needs (lclab.planning.experiment_plan), so `plan` is left None; an experiment whose
                     later stages' prompts cannot be known before a call registers its own `plan` instead
    arms:            Parameters -> the parameters its stages run under, one per model a run asks the same samples
                     (07's `models`, each with its own config); None: the Parameters themselves
    sample_sets:     Parameters -> the SampleSets a run asks, where it asks more than `prepare`'s samples through
                     `stages` (None: that one set)
    cards:           (notebook, parameters) -> the plan rows of the cards on the shipped texts its judge reads
                     (lclab.scoring.judge_card.card_rows: by kind, for its judge stage)
    embedded:        (parameters, its sample sets) -> the texts its run embeds (the chunks it indexes, the
                     queries it searches with), priced by the plan's first row under the parameters' `embedder`
    """

    name: str
    notebook: str
    plan: Callable[[str, dict], list[dict]] | None = None
    comparable: tuple[str, ...] | None = None
    series: Series | None = None
    rebuild_prompt: Callable[[dict, dict], Any] | None = None
    design: Callable[[dict], "Design"] | None = None
    judged_rate: str | None = None
    parameters: type | None = None
    prepare: Callable[..., list] | None = None
    run: Callable[[Any], Any] | None = None
    stages: tuple = ()
    arms: Callable[[Any], list] | None = None
    sample_sets: Callable[[Any], list[SampleSet]] | None = None
    cards: Callable[[str, Any], list[dict]] | None = None
    embedded: Callable[[Any, list], list[str]] | None = None
    description: str = ""

    def declared(self, values: dict) -> Any:
        """Its Parameters filled from a plan's parameters dict (the declared names; anything else is not its)."""
        names = set(self.parameters.__dataclass_fields__)
        return self.parameters(**{k: v for k, v in values.items() if k in names})

    @property
    def notebook_stem(self) -> str:
        return self.notebook.rsplit("/", 1)[-1].removesuffix(".ipynb")


_REGISTRY: dict[str, Experiment] = {}
_discovered = False


def register(experiment: Experiment) -> Experiment:
    """Add an experiment to the registry (again under the same name: the newer one wins) and return it.

    Registered from a folder's `experiment.py`, its name must be the folder's: one name for the folder, its runs
    (results/<name>/) and its figures (figures/<name>_<run>.png)."""
    module = sys._getframe(1).f_globals.get("__name__", "")
    package, _, leaf = module.rpartition(".")
    folder = package.rpartition(".")[2]
    if leaf == "experiment" and folder and folder != experiment.name:
        raise RegistrationError(f"{module} registers an experiment named {experiment.name!r}: name it {folder!r}, "
                                "after its folder (its runs and figures are filed under that name)")
    _REGISTRY[experiment.name] = experiment
    return experiment


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


class RegistrationError(ImportError):
    """An experiment folder's `experiment.py` could not be imported: the registry would be partial."""


def discover() -> None:
    """Import every `lclab.<folder>.experiment` module once, which registers its experiment. One that fails to
    import raises RegistrationError naming it (and discovery is tried again on the next lookup): a registry that
    silently lacked an experiment would plan, compare and report without it."""
    global _discovered
    if _discovered:
        return
    import lclab

    for info in pkgutil.iter_modules(lclab.__path__):
        module = f"lclab.{info.name}.experiment"
        # Looked up as a file: find_spec would import the folder's package to look, and a package with no
        # experiment (compare: its figures, so seaborn and scipy.stats) would load with every registry.
        if info.ispkg and (Path(info.module_finder.path) / info.name / "experiment.py").exists():
            try:
                importlib.import_module(module)
            except Exception as err:
                raise RegistrationError(f"{module} failed to import, so its experiment is not registered: "
                                        f"{type(err).__name__}: {err}") from err
    _discovered = True


def experiments() -> list[Experiment]:
    """Every registered experiment, in notebook order."""
    discover()
    return sorted(_REGISTRY.values(), key=lambda e: e.notebook_stem)


def get(name: str) -> Experiment:
    """The experiment registered under `name`; KeyError naming the known ones otherwise."""
    discover()
    if name not in _REGISTRY:
        raise KeyError(f"no experiment {name!r}; registered: {sorted(_REGISTRY)}")
    return _REGISTRY[name]


def find(name: str) -> Experiment | None:
    discover()
    return _REGISTRY.get(name)


def for_notebook(notebook: str) -> Experiment | None:
    """The experiment a notebook runs (by file stem or path), or None (a notebook that is no experiment)."""
    stem = notebook.rsplit("/", 1)[-1].removesuffix(".ipynb")
    return next((e for e in experiments() if e.notebook_stem == stem), None)
