"""07's one model-calling stage, declared once: the run sends it for each model (run.py) and the plan prices it
(experiment.py). Its parameters are one model's `Arm`: a run asks every model in `models` the same samples, each
under its own config (budget, temperature, retries, threads)."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Request
from ..models.configs import ModelConfig
from ..pipeline import Stage
from .options import Options


@dataclass(frozen=True)
class Arm:
    """One answering model of a run: what the stage reads as its parameters."""

    config: ModelConfig
    options: Options

    @property
    def model(self) -> str:
        return self.config.spec

    @property
    def threads(self) -> int:
        return self.config.threads


def answer_request(config: ModelConfig, options: Options) -> Request:
    """The answering call's request for one model (the same Request for the run and its plan's lookup)."""
    return Request(max_tokens=config.max_tokens, temperature=config.temperature,
                   text_completion=options.text_completion, retry=config.retry)


ANSWER = Stage("rag_ifeval answer", request=lambda arm: answer_request(arm.config, arm.options),
               prompt=lambda s: s.input, workers="threads")
