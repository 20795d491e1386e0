"""09's one model-calling stage, declared once: the run sends it (run.py) and the plan prices it (experiment.py).
No judge: every reply is scored by string match."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Stage


def answer_stage(budget: int, text_completion: bool = False) -> Stage:
    """The answer within `budget` reply tokens: RULER's tasks carry their own (run.answer_budget), the lab's use
    `max_answer_tokens`; the closed-book arm asks the same stage with no text. `text_completion`: a RULER prompt
    prefilled as RULER runs open models (the chat template and the answer prefix in one raw text to continue)."""
    return Stage("answer", request=lambda p: Request(max_tokens=budget, text_completion=text_completion),
                 prompt=lambda s: s.input)


# The stage as registered (the lab's own budget): the run and the plan ask it under each sample's budget.
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
