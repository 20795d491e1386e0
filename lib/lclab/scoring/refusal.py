"""The judge-free refusal check: does a reply say the text does not answer? A rule decides wherever the prompt
asked for a refusal phrase (`lclab.text.context.ABSENT_REPLY`: the synthetic tasks, 02's unanswerable sets and
Self-Route); 05 reads it beside its model-judged refusal tag as a baseline.

    refusal_cue("It is not in the text.")     # 1.0
    refusal_cue("Paris")                       # 0.0
"""

from __future__ import annotations

import re

_REFUSAL_CUES = re.compile(r"\b(don't know|do not know|not mentioned|no information|not provided|not specified|"
                           r"cannot (answer|say|tell)|can't (answer|say|tell)|unable to|does not (say|mention|state)|"
                           r"doesn't (say|mention|state)|no mention|not stated|not enough information|"
                           r"not (in|found in|given in|contained in) the (text|documents?|context)|unanswerable)\b",
                           re.I)


def refusal_cue(text: str | None) -> float:
    """1.0 when the text holds a refusal phrase, else 0.0 (a missing reply is the caller's to leave unscored)."""
    return float(bool(_REFUSAL_CUES.search(text or "")))
