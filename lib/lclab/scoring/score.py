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

Each experiment writes a score into its item rows under a column name (`columns`), so tables read the same
columns as before the type existed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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

    def columns(self, name: str, error: str | None = None) -> dict:
        """The score as row columns: `name` (the value), `name_<key>` for each metadata key, and the reason it
        is unscored under `error` (default `name_error`)."""
        return {name: self.value, **{f"{name}_{k}": v for k, v in self.metadata.items()},
                error or f"{name}_error": self.unscored}


def unscored(reason: str, answer: str | None = None, **metadata) -> Score:
    """A score that could not be given, with its reason."""
    return Score(None, answer, None, metadata, reason)
