"""Logprob-weighted scoring (seed 002): a score is Σ sᵢ·p(sᵢ) over a fixed set of score tokens.

    result = score(model, prompt)            # labels ("0", "1") by default
    result.score        # 0.93: the expected score under the model's first-token distribution
    result.mass_outside # probability the model put on tokens that are not scores at all
    result.source       # "logprobs", or "sampled" when the backend gave none (flag every such row)

    value_probabilities(reply.logprobs, "correct", ("true", "false"), "true")   # a JSON judge's verdict

The probabilities come from the top logprobs of the first generated token,
renormalized over the score labels. Tokens that differ only by surrounding
white space (" 1" and "1") count as the same label. Every label must be a
single token of the model's tokenizer, and no label may be a prefix of another:
with "10" in the set, a first token "1" could be the start of "10" or the score
1, so such sets are refused (`check_labels`) rather than scored wrongly.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from typing import Callable, Sequence

from ..models import LogprobsUnavailableError, Request, backend_for, complete, count_tokens
# An endpoint's refusal of logprobs is kept with the model cache's failures: a later process asks it without them
# from its first call, so a warm run makes no call; clearing the model cache forgets it with the replies.
from ..models.replay import failures
from .score import Score

DEFAULT_LABELS = ("0", "1")
TOP_LOGPROBS = 20  # alternatives asked for; the score labels are almost always among them


class WeightedScore(Score):
    """A first-token probability score as a Score: value = Σ s·p(s) over the labels, renormalized (None when
    nothing usable came back); answer = the first generated token, stripped; metadata = the probabilities
    renormalized over the labels, the mass outside them (None without logprobs), and the source ("logprobs", or
    "sampled": the fallback when the backend gives no logprobs); unscored = why there is no value."""

    def __init__(self, score: float | None, probabilities: dict | None = None, mass_outside: float | None = None,
                 sampled: str = "", source: str = "logprobs", problem: str | None = None):
        super().__init__(value=score, answer=sampled, unscored=problem, metadata={
            "probabilities": dict(probabilities or {}), "mass_outside": mass_outside, "source": source})

    score = property(lambda self: self.value)
    sampled = property(lambda self: self.answer)
    problem = property(lambda self: self.unscored)
    probabilities = property(lambda self: self.metadata["probabilities"])
    mass_outside = property(lambda self: self.metadata["mass_outside"])
    source = property(lambda self: self.metadata["source"])


def check_labels(labels: Sequence[str], count: Callable[[str], int] | None = None) -> None:
    """Refuse label sets the first-token method cannot score: non-numeric, prefixes, multi-token."""
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise ValueError(f"need at least two distinct score labels, got {list(labels)}")
    for label in labels:
        try:
            float(label)
        except ValueError:
            raise ValueError(f"score label {label!r} is not a number") from None
        prefixed = [other for other in labels if other != label and other.startswith(label)]
        if prefixed:
            raise ValueError(f"score label {label!r} is a prefix of {prefixed}: a first token {label!r} "
                             "would be ambiguous; use labels of one token each (e.g. 0-9)")
        if count is not None and count(label) != 1:
            raise ValueError(f"score label {label!r} is {count(label)} tokens for this model; the score is "
                             "read from the first generated token, so every label must be one token")


def weighted_score(top: Sequence[Sequence], labels: Sequence[str] = DEFAULT_LABELS, sampled: str = "") -> WeightedScore:
    """The weighted score from one token's top alternatives [[token, logprob], ...]."""
    raw = {label: 0.0 for label in labels}
    for token, logprob in top:
        key = str(token).strip()
        if key in raw:
            raw[key] += math.exp(logprob)
    total = sum(raw.values())
    outside = max(0.0, 1.0 - total)
    if total <= 0:
        return WeightedScore(None, {}, outside, sampled, "logprobs",
                             f"no score label among the top {len(top)} first tokens (sampled {sampled!r})")
    probabilities = {label: p / total for label, p in raw.items()}
    value = sum(float(label) * p for label, p in probabilities.items())
    return WeightedScore(value, probabilities, outside, sampled)


def sampled_score(text: str, labels: Sequence[str] = DEFAULT_LABELS) -> WeightedScore:
    """The fallback: the sampled token itself as the score (flagged as such)."""
    token = text.strip()[:max(len(label) for label in labels)].strip()
    if token in labels:
        return WeightedScore(float(token), {token: 1.0}, None, token, "sampled")
    return WeightedScore(None, {}, None, token, "sampled", f"reply {text[:40]!r} is not one of {list(labels)}")


def score_request(cache_tag: str | None = None, system: str | None = None) -> Request:
    """`score`'s call, with its top logprobs, as the run sends it and a plan looks it up:
    `gateway.cached(model, prompt, score_request())`."""
    return Request(max_tokens=1, system=system, logprobs=True, top_logprobs=TOP_LOGPROBS, cache_tag=cache_tag)


def score(model: str, prompt: str, labels: Sequence[str] = DEFAULT_LABELS, *, stage: str = "score",
          require_logprobs: bool = False, system: str | None = None, cache_tag: str | None = None) -> WeightedScore:
    """Ask for one score token and weight the labels by their first-token probabilities.

    A backend without logprobs falls back to the sampled token (source "sampled"),
    unless `require_logprobs`, in which case its error is raised at once.
    """
    check_labels(labels, lambda label: count_tokens(model, label))
    try:
        if _without_logprobs(model):
            raise LogprobsUnavailableError(f"{model} returned no logprobs to an earlier request")
        request = score_request(cache_tag, system)
        reply = complete(model, prompt, stage=stage, request=request)
    except LogprobsUnavailableError as err:
        _note_without_logprobs(model, err)
        if require_logprobs:
            raise LogprobsUnavailableError(
                f"{err}. This run requires logprobs (require_logprobs=True); use a backend that returns "
                "them (the embedded llama.cpp models and OpenAI do), or allow the sampled-token fallback") from err
        reply = complete(model, prompt, stage=stage, request=score_request(cache_tag, system).but(
            logprobs=False, top_logprobs=0))
        return sampled_score(reply.text, labels)
    first = reply.logprobs[0] if reply.logprobs else None
    if first is None:
        return WeightedScore(None, {}, None, reply.text.strip(), "logprobs", "the reply has no tokens")
    return weighted_score(first["top"], labels, sampled=first["token"].strip())


def value_probabilities(tokens: list[dict], key: str, values: Sequence[str], positive: str) -> list[WeightedScore]:
    """p(`positive`) at each `"key": value` of a JSON reply, read at the value's first token.

    `tokens` are the reply's per-token logprobs. The probabilities of the top
    alternatives at the token where the value starts are summed per allowed
    value (an alternative counts for a value when its text is a non-empty
    prefix of that value and of no other) and renormalized over `values`; the
    mass on anything else is recorded. One WeightedScore per occurrence, in order.
    """
    text = "".join(t["token"] for t in tokens)
    ends = list(itertools.accumulate(len(t["token"]) for t in tokens))
    scores = []
    for match in re.finditer(rf'"{re.escape(key)}"\s*:\s*"?', text):
        offset = match.end()
        i = bisect.bisect_right(ends, offset)  # the token that holds the value's first character
        sampled = re.match(r'[^",}\]]*', text[offset:]).group(0).strip()
        if i >= len(tokens):
            scores.append(WeightedScore(None, {}, None, sampled, "logprobs", f'no token after "{key}"'))
            continue
        lead = text[ends[i] - len(tokens[i]["token"]):offset]  # what the token holds before the value
        raw = {v: 0.0 for v in values}
        for alternative, logprob in tokens[i]["top"]:
            rest = alternative[len(lead):] if alternative.startswith(lead) else alternative
            stem = rest.strip().lstrip('"').lower()
            owners = [v for v in values if stem and v.lower().startswith(stem)]
            if len(owners) == 1:
                raw[owners[0]] += math.exp(logprob)
        total = sum(raw.values())
        if total <= 0:
            scores.append(WeightedScore(None, {}, max(0.0, 1 - total), sampled, "logprobs",
                                        f"no allowed value of {key!r} among the top alternatives"))
            continue
        probabilities = {v: p / total for v, p in raw.items()}
        scores.append(WeightedScore(probabilities[positive], probabilities, max(0.0, 1.0 - total), sampled))
    return scores


def sampled_value(value, positive) -> WeightedScore:
    """The fallback without logprobs: the value the reply holds, as probability 1 or 0 (flagged "sampled")."""
    return WeightedScore(float(value == positive), {}, None, str(value), "sampled")


def with_logprobs(request: Request) -> Request:
    """`request` asking for the top logprobs of every reply token (what `complete_with_logprobs` sends first)."""
    return request.but(logprobs=True, top_logprobs=TOP_LOGPROBS)


def complete_with_logprobs(model: str, prompt, stage: str, request: Request):
    """`complete` asking for the top logprobs of every reply token: (reply, True); on an endpoint that gives
    none, the same request without them: (reply, False), so the caller flags what it reads as sampled.
    An endpoint found without logprobs is not asked for them again in this process."""
    if not _without_logprobs(model):
        try:
            return complete(model, prompt, stage=stage, request=with_logprobs(request)), True
        except LogprobsUnavailableError as err:
            _note_without_logprobs(model, err)
    return complete(model, prompt, stage=stage, request=request), False


_WITHOUT_LOGPROBS: set[str] = set()  # backend identities that answered without logprobs
_LOOKED_UP: set[str] = set()  # endpoints whose kept refusal this process has looked for


def _endpoint(model: str) -> str:
    return repr(sorted(backend_for(model).identity.items()))


def _without_logprobs(model: str) -> bool:
    endpoint = _endpoint(model)
    if endpoint not in _WITHOUT_LOGPROBS and endpoint not in _LOOKED_UP:
        _LOOKED_UP.add(endpoint)
        if failures().get({"endpoint without logprobs": backend_for(model).identity}) is not None:
            _WITHOUT_LOGPROBS.add(endpoint)
    return endpoint in _WITHOUT_LOGPROBS


def _note_without_logprobs(model: str, err: Exception) -> None:
    _WITHOUT_LOGPROBS.add(_endpoint(model))
    failures().put({"endpoint without logprobs": backend_for(model).identity},
                    {"error": type(err).__name__, "message": str(err)})


def read_values(reply, has_logprobs: bool, key: str, values: Sequence[str], positive: str, sampled: list) -> list:
    """p(`positive`) of each `key` in a JSON reply, from the logprobs where there are some, else each sampled
    value as 1 or 0 (flagged). `sampled`: the values the parsed reply holds, in order."""
    read = value_probabilities(reply.logprobs or [], key, values, positive) if has_logprobs else []
    if len(read) != len(sampled):  # logprobs missing, or the text and the parse disagree: no made-up numbers
        read = [sampled_value(v, positive) for v in sampled]
    return [r if r.score is not None else sampled_value(v, positive) for r, v in zip(read, sampled)]
