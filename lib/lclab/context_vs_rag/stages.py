"""02's model-calling stages, declared once: the run sends them (steps.py, and the closed-book arm's own,
lclab.qa.closed_book) and the plan prices them (experiment.py). p: 02's Parameters (or steps.TrialSteps, which
carries the same fields)."""

from __future__ import annotations

from typing import Callable

from ..models import Request
from ..pipeline import Retrieved, Stage
from ..prompts import render
from ..scoring.judge_kinds import correctness_judge

# Every arm's answer: long context's prompt is the sample's own; a retrieving arm's is built from what retrieval
# found (steps.answered), the template with k of its set's chunks (`retrieving_answer`).
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
JUDGE = correctness_judge(reads=ANSWER.name)


def retrieving_answer(if_absent: str, pools: dict | None = None, shared: Callable | None = None) -> Stage:
    """A retrieving arm's answer, as the run builds its prompt (`with_retrieved`: steps.answered) and the plan
    prices it: the answer template with the question, `if_absent`, and the k chunks of its set (`pools`: each
    document set's chunk texts by id, what the plan reads) retrieval finds, each under its document heading;
    `shared`: per sample, the chunks it shares with the call just before it."""
    return ANSWER.but(template="answer_with_documents",
                      known=lambda s: {"question": s.source.question, "if_absent": if_absent},
                      retrieved=Retrieved("documents", k=lambda s: min(s["k"], len(pools[id(s.source)])),
                                          pool=lambda s: pools[id(s.source)],
                                          piece=lambda text: render("document", index=1, text=text),
                                          shared=shared))
