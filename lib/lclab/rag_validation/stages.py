"""06's model-calling stages, declared once: the run sends them (run.py) and the plan prices them (experiment.py).
p: 06's Parameters. The question generation is the shared QA generator's (lclab.qa.generate), the claim
diagnostics lclab.scoring.claims'."""

from __future__ import annotations

from ..models import Request
from ..pipeline import Stage
from ..scoring.judges import correctness_judge, faithfulness_judge, relevance_judge

# The answer reads what retrieval found (Stage.send with the prompt built from the hits), so its plan prices it by
# the template (the declared exception, docs/layout.md).
ANSWER = Stage("answer", request=lambda p: Request(max_tokens=p.max_answer_tokens), prompt=lambda s: s.input)
CORRECT, RELEVANT, FAITHFUL = (correctness_judge(reads=ANSWER.name), relevance_judge(reads=ANSWER.name),
                               faithfulness_judge(reads=ANSWER.name))
JUDGES = (CORRECT, RELEVANT, FAITHFUL)
