"""An experiment's pipeline as declared values: each model-calling stage once (`Stage`), read by the run that
executes it and by the plan that prices it (lclab.planning.experiment_plan.planned_stages)."""

from .stage import Stage

__all__ = ["Stage"]
