"""06's model-calling stages, declared once: the run sends them (run.py) and the plan prices them (experiment.py).
p: 06's Parameters. The question generation is the shared QA generator's (lclab.qa.generate), the claim
diagnostics lclab.scoring.claims'. Its judges are every judge kind that names it (lclab.scoring.judge_kinds)."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Stage
from ..scoring.judge_kinds import CORRECTNESS, JudgeKind, answered_by_sample, judged_in

EXPERIMENT = "rag_validation"
# The answer reads what retrieval found (Stage.send with the prompt built from the hits), so its plan prices it by
# the template (the declared exception, docs/layout.md).
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
CORRECT = CORRECTNESS.declared(ANSWER.name, answered_by_sample)  # whose model judges every kind (role "judge")


def judges() -> tuple[tuple[JudgeKind, Stage], ...]:
    """Each judge kind 06 judges every answer with, and its stage reading the answer (read when called: a kind
    registered later is judged too)."""
    return tuple((k, k.declared(ANSWER.name, answered_by_sample)) for k in judged_in(EXPERIMENT))
