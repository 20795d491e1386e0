"""06's model-calling stages, declared once: the run sends them (run.py) and the plan prices them (experiment.py).
p: 06's Parameters. The question generation is the shared QA generator's (lclab.qa.generate), the claim
diagnostics lclab.scoring.claims'. Its judges are every judge kind that names it (lclab.scoring.judge_kinds)."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Retrieved, Stage
from ..prompts import render
from ..scoring.judge_kinds import CORRECTNESS, JudgeKind, answered_by_sample, judged_in

EXPERIMENT = "rag_validation"
# The answer's gateway stage and request; its prompt holds what retrieval found (`answering`: the run builds it,
# the plan prices it).
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
CORRECT = CORRECTNESS.declared(ANSWER.name, answered_by_sample)  # whose model judges every kind (role "judge")


def judges() -> tuple[tuple[JudgeKind, Stage], ...]:
    """Each judge kind 06 judges every answer with, and its stage reading the answer (read when called: a kind
    registered later is judged too)."""
    return tuple((k, k.declared(ANSWER.name, answered_by_sample)) for k in judged_in(EXPERIMENT))


def answering(answer_k: int, pool: list[str] = ()) -> Stage:
    """The answer as the run builds its prompt (`with_retrieved`: run.answered) and the plan prices it: the
    template with the question and, in the passages slot, the `answer_k` chunks retrieval finds among the
    corpus's (`pool`, their texts: what the plan reads), each under its heading and followed by the blank line
    that joins them."""
    return ANSWER.but(template="rag_answer", known=lambda s: {"question": s.source.question},
                      retrieved=Retrieved("passages", k=lambda s: answer_k, pool=lambda s: pool,
                                          piece=lambda text: render("rag_passage", index=1, text=text) + "\n\n"))
