"""Which model judges: never the model under test by default.

    judge = choose_judge("local/qwen2.5-coder-0.5b", "")   # -> Judge("local/qwen2.5-coder-1.5b", self_judged=False)
    judge.spec, judge.label, judge.why

A judge is an instrument. Left unnamed (`judge_model: ""`), it is the strongest embedded model, and never the
answering model where another at least as strong is embedded:

- an embedded answering model is judged by the strongest embedded model (the 1.5B judges the 0.5B); the
  strongest one itself has nothing stronger beside it, so it judges itself, and everything it judges says
  "self-judged";
- a served model or a GGUF file of your own is judged by the strongest embedded model: its strength is not
  known here, so the default keeps the judge apart from the model under test; name a stronger judge with
  `judge_model` where you have one.

A named judge is used as named, and called self-judged when it is the answering model.
"""

from __future__ import annotations

from dataclasses import dataclass

# The embedded models, weakest first (lclab.models.local_models holds their files).
EMBEDDED_BY_STRENGTH = ("local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-1.5b")
STRONGEST_EMBEDDED = EMBEDDED_BY_STRENGTH[-1]
SELF_JUDGED = "self-judged"


@dataclass(frozen=True)
class Judge:
    spec: str  # the judging model's spec
    self_judged: bool  # the judge is the model under test
    why: str  # how it was chosen, for the run's notes

    @property
    def label(self) -> str:
        """The judge as every judged table, figure and index row names it."""
        return f"{self.spec} ({SELF_JUDGED})" if self.self_judged else self.spec


def _same_model(a: str, b: str) -> bool:
    return a.strip().rstrip("/") == b.strip().rstrip("/")


def choose_judge(model: str, judge_model: str = "") -> Judge:
    """The judge of `model`'s answers: `judge_model` when named, else the default above (a named judge that is the
    default's own choice is described as the default: a run records the judge it resolved)."""
    if judge_model and not _same_model(judge_model, choose_judge(model).spec):
        same = _same_model(model, judge_model)
        return Judge(judge_model, same, "named (the answering model judges itself)" if same else "named")
    if _same_model(model, STRONGEST_EMBEDDED):
        return Judge(model, True, "default: no embedded model is stronger than the answering one, so it judges "
                                  "itself; name a judge_model to change that")
    return Judge(STRONGEST_EMBEDDED, False, "default: the strongest embedded model, not the model under test")


def judge_spec(model: str, judge_model: str = "") -> str:
    """`choose_judge(...).spec`: what a plan or a set-up needs to know."""
    return choose_judge(model, judge_model).spec
