"""The judge-free refusal check: does a reply say the text does not answer? A rule decides wherever the prompt
asked for a refusal phrase (`lclab.text.context.ABSENT_REPLY`: the synthetic tasks, 02's unanswerable sets and
Self-Route); 05 reads it beside its model-judged refusal tag as a baseline.

    refusal_cue("It is not in the text.")     # Score(1.0, explanation="not in the text")
    refusal_cue("Paris")                       # Score(0.0)
    refusal_cue(None)                          # unscored: there is no reply to read
"""

from __future__ import annotations

import re

from .score import Score, unscored

_REFUSAL_CUES = re.compile(r"\b(don't know|do not know|not mentioned|no information|not provided|not specified|"
                           r"cannot (answer|say|tell)|can't (answer|say|tell)|unable to|does not (say|mention|state)|"
                           r"doesn't (say|mention|state)|no mention|not stated|not enough information|"
                           r"not (in|found in|given in|contained in) the (text|documents?|context)|unanswerable)\b",
                           re.I)


def refusal_cue(text: str | None) -> Score:
    """1.0 when the text holds a refusal phrase (the phrase is the explanation), else 0.0; a missing reply is
    unscored, never read as an answer."""
    if text is None:
        return unscored("no reply to read")
    found = _REFUSAL_CUES.search(text)
    return Score(float(bool(found)), answer=text, explanation=found.group(0) if found else None)
