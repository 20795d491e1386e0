"""09's one model-calling stage, declared once: the run sends it (run.py) and the plan prices it (experiment.py).
No judge: every reply is scored by string match."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Stage


def answer_stage(budget: int) -> Stage:
    """The answer within `budget` reply tokens: RULER's tasks carry their own (run.answer_budget), the lab's use
    `max_answer_tokens`; the closed-book arm asks the same stage with no text."""
    return Stage("answer", request=lambda p: Request(max_tokens=budget), prompt=lambda s: s.input)
