"""02's model-calling stages, declared once: the run sends them (steps.py, and the closed-book arm's own,
lclab.qa.closed_book) and the plan prices them (experiment.py). p: 02's Parameters (or steps.TrialSteps, which
carries the same fields)."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Stage
from ..scoring.judge_kinds import correctness_judge

# Every arm's answer: long context's prompt is the sample's own; a retrieving arm's is built from what retrieval
# found (Stage.send), so its plan prices it by the template (the declared exception, docs/layout.md).
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
JUDGE = correctness_judge(reads=ANSWER.name)
