"""05's three stages as the run executes them (run.py): the pronoun replacement of every answer and reference, the
NLI verdict on every (premise, hypothesis), and the refusal tags of every text. Their parameters are one
configuration's `Asking`; 05's own plan prices the same requests (experiment.py, the declared exception in
docs/layout.md: a hypothesis is the pronoun stage's reply)."""

from __future__ import annotations

from dataclasses import dataclass

from ..pipeline import Given, Stage
from ..runs.samples import Sample
from .pipeline import NLI_STAGE, PRONOUN_STAGE, REFUSAL_STAGE, judge_hypothesis, replace_pronouns, tag_refusals
from .probability import score_hypothesis, score_refusal


@dataclass(frozen=True)
class Asking:
    """One configuration of a run: its model, its NLI variant, whether pronouns are replaced, its cache tag and
    how many requests it sends at once."""

    model: str
    variant: str
    pronouns: bool
    cache_tag: str | None
    concurrency: int

    @property
    def probability(self) -> bool:
        return self.variant == "probability"


def replaced(given: Given, unit: Sample, row: dict) -> dict:
    """A text's sentences with their pronouns replaced (as they were, without the replacement: no call)."""
    a, raw = given.p, unit["sentences"]
    sentences, problem = (replace_pronouns(a.model, raw, unit.source.question_last, a.cache_tag) if a.pronouns
                          else (raw, None))
    return {"sentences": sentences, "problem": problem}


def verdict(given: Given, sample: Sample, row: dict) -> dict:
    """One hypothesis's estimate: its facts tagged (a generated verdict), or p(supported) (one token)."""
    a, req = given.p, sample.metadata
    if a.probability:
        v = score_hypothesis(a.model, req["premise"], req["hypothesis"], req["document"], a.cache_tag)
    else:
        v = judge_hypothesis(a.model, a.variant, req["premise"], req["hypothesis"], req["document"], a.cache_tag)
    return v.columns("estimate", error="error")


def tagged(given: Given, sample: Sample, row: dict) -> dict:
    """Whether each text of a batch is a refusal (one token per text with "probability")."""
    a, contents = given.p, sample["contents"]
    verdicts = ([score_refusal(a.model, t, a.cache_tag) for t in contents] if a.probability
                else tag_refusals(a.model, contents, a.cache_tag))
    return {"verdicts": [v.columns("refusal") for v in verdicts]}


# Each stage's write makes its calls, each with its own request (a batch's budget by its size, a variant's
# schema): their plan is 05's own (experiment.py), which prices the same requests.
PRONOUNS = Stage(PRONOUN_STAGE, workers="concurrency", write=replaced)
NLI = Stage(NLI_STAGE, workers="concurrency", write=verdict)
REFUSALS = Stage(REFUSAL_STAGE, workers="concurrency", write=tagged)
