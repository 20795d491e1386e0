"""An experiment's pipeline as declared values: each stage once (`Stage`), executed by the runner
(lclab.runs.runner.Run.stages) with what the run gives every stage (`Given`), and priced by the plan
(lclab.planning.experiment_plan.planned_stages)."""

from .stage import Given, Retrieved, Stage, each_model

__all__ = ["Given", "Retrieved", "Stage", "each_model"]
