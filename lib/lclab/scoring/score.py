"""The one score type every scorer returns, whatever it measures.

    Score(value, answer, explanation, metadata, unscored)

value        what the scorer gives: a number (a string match's 0/1, a synthetic task's share of values found,
             a logprob-weighted p), a judge's verdict (True/False), or named scores (RAG-IFEval's conditions);
             None when the item could not be scored
answer       what was scored, as the scorer read it (the sampled token, the normalized answer)
explanation  why, when the scorer says (a rule's reason, a judge's words)
metadata     what else the scorer measured (the verdict's probability and how it was read, self-consistency)
unscored     why there is no value (a reply with no verdict, no score label among the top tokens); a row with
             one is left out of every rate and counted, never scored 0

Every experiment writes a score into its item rows through one step, `Score.columns(name)`: under its column
name the value (named scores in one column, or one column each, `name_<key>`), each metadata key as `name_<key>` (the
probability `name_p` and how it was read `name_source`, where the scorer measured them), and the reason it went
unscored; what was scored and why, under the column names the experiment gives them.

    score.columns("judge_correct", error="judge_error")
    # {"judge_correct": True, "judge_correct_p": 0.93, "judge_correct_source": "logprobs", ..., "judge_error": None}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


# Part of the fingerprint of every row a Score's columns were renamed in (NLI, the probability scores, claims):
# a row an older version logged under other names is redone from the model cache (no call), never read short.
LAYOUT = "Score.columns 2"


@dataclass(frozen=True)
class Score:
    value: Any = None
    answer: str | None = None
    explanation: str | None = None
    metadata: dict = field(default_factory=dict)
    unscored: str | None = None

    @property
    def scored(self) -> bool:
        return self.unscored is None and self.value is not None

    def columns(self, name: str, error: str | None = None, answer: str | None = None,
                explanation: str | None = None, spread: bool = False) -> dict:
        """The score as row columns: `name` (the value; with `spread`, named scores as `name_<key>` each),
        `name_<key>` for each metadata key, the reason it is unscored under `error` (default `name_error`), and
        what was scored and why under `answer` and `explanation` when the experiment names those columns."""
        if spread:  # named scores one column each; an unscored one writes none (its reason is in `error`)
            value = {f"{name}_{k}": v for k, v in (self.value or {}).items()}
        else:
            value = {name: self.value}
        return {**value, **{f"{name}_{k}": v for k, v in self.metadata.items()},
                error or f"{name}_error": self.unscored,
                **({answer: self.answer} if answer else {}),
                **({explanation: self.explanation} if explanation else {})}


def unscored(reason: str, answer: str | None = None, **metadata) -> Score:
    """A score that could not be given, with its reason."""
    return Score(None, answer, None, metadata, reason)
