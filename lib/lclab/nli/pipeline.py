"""NLI-based answer evaluation (seed 003): the model calls, one function per step.

Sentence conversion (`lclab.text.sentences`), then:

- pronoun replacement in the answer's and the ground truth's sentences, up to
  16 sentences per prompt, with the count checked;
- NLI of each hypothesis sentence against a premise: the model splits it into
  facts, explains and tags each fact; a hypothesis's estimate is the share of
  its facts tagged "supported", a pair's the mean over its hypotheses;
- answer refusal: the first two sentences of a text, tagged in batches of 8
  (variant "separated"), or asked inside each NLI prompt (variant "same").

`lclab.nli.run` runs these over a set of items with concurrency and timing.
"""

from __future__ import annotations


from ..models import ParseError, Request, complete
from ..prompts import render, template
from ..scoring.logprob import complete_with_logprobs, read_values
from ..scoring.score import Score

# The gateway stages this module calls: the run's accounting rows, the plan's rows (nli.experiment).
PRONOUN_STAGE, NLI_STAGE, REFUSAL_STAGE = "pronouns", "nli", "refusal"
PRONOUN_BATCH = 16
NLI_TOKENS = 400  # the facts, explanations and tags of one hypothesis


def pronoun_budget(n: int) -> int:
    """max_tokens of a pronoun replacement of n sentences."""
    return 60 * n + 40


def refusal_budget(n: int) -> int:
    """max_tokens of the refusal tags of a batch of n texts."""
    return 16 * n + 30

REFUSAL_BATCH = 8
REFUSAL_SENTENCES = 2
VARIANTS = ("separated", "same", "probability")  # "probability": one token per hypothesis (probability.py)
# The NLI labels entailment / neutral / contradiction, in words a small model reads correctly
# (the 1.5B model tagged "neutral" facts it had just explained were stated in the premise).
TAGS = ("supported", "not mentioned", "contradicted")
ENTAILED = "supported"

_FACT = {"type": "object", "properties": {"fact": {"type": "string"}, "explanation": {"type": "string"},
                                          "tag": {"type": "string", "enum": list(TAGS)}},
         "required": ["fact", "explanation", "tag"]}
NLI_SCHEMAS = {
    "separated": {"type": "object", "properties": {"facts": {"type": "array", "items": _FACT}},
                  "required": ["facts"]},
    "same": {"type": "object", "properties": {"refusal": {"type": "boolean"},
                                              "facts": {"type": "array", "items": _FACT}},
             "required": ["refusal", "facts"]},
}
NLI_SYSTEM = {"separated": "nli_system", "same": "nli_refusal_system"}
PRONOUN_SCHEMA = {"type": "object", "properties": {"sentences": {"type": "array", "items": {"type": "string"}}},
                  "required": ["sentences"]}
REFUSAL_SCHEMA = {"type": "object", "properties": {"tags": {"type": "array", "items": {
    "type": "object", "properties": {"id": {"type": "integer"}, "refusal": {"type": "boolean"}},
    "required": ["id", "refusal"]}}}, "required": ["tags"]}


def _numbered(lines: list[str]) -> str:
    return "\n".join(f"{i + 1}. {line}" for i, line in enumerate(lines))


def batches(seq: list, size: int) -> list[list]:
    if size < 1:
        raise ValueError(f"batch size must be at least 1, got {size}")
    return [seq[i:i + size] for i in range(0, len(seq), size)]


# -- pronoun replacement ------------------------------------------------------

def _count_check(key: str, n: int):
    def validate(reply) -> str | None:
        got = reply.get(key) if isinstance(reply, dict) else None
        if not isinstance(got, list):
            return f'the reply needs a list under "{key}"'
        if len(got) != n:
            return f'"{key}" has {len(got)} entries; exactly {n} are needed, one per numbered line, in order'
        return None
    return validate


def pronoun_prompts(sentences: list[str], question: str, batch_size: int = PRONOUN_BATCH) -> list[str]:
    """The exact prompts pronoun replacement sends for these sentences: one per batch."""
    return [render("pronoun_replacement", n=len(batch), question=question, sentences=_numbered(batch))
            for batch in batches(sentences, batch_size)]


def replace_pronouns(model: str, sentences: list[str], question: str,
                     cache_tag: str | None = None, batch_size: int = PRONOUN_BATCH) -> tuple[list[str], str | None]:
    """The sentences with pronouns replaced by what they refer to, and a problem or None.

    A reply with the wrong number of sentences gets one repair round (the gateway's);
    when that fails too, the batch keeps its original sentences and the problem is
    returned, so the item is flagged rather than scored on misaligned sentences.
    """
    out, problems = [], []
    for batch, prompt in zip(batches(sentences, batch_size), pronoun_prompts(sentences, question, batch_size)):
        try:
            reply = complete(model, prompt, stage=PRONOUN_STAGE, request=pronoun_request(len(batch), cache_tag))
        except ParseError as err:
            problems.append(f"pronoun replacement kept the original {len(batch)} sentences: {err}")
            out.extend(batch)
            continue
        # An empty rewrite would silently drop a hypothesis: keep the original there.
        out.extend(new.strip() or old for new, old in zip(reply.json["sentences"], batch))
    return out, ("; ".join(problems) or None)


# -- NLI ----------------------------------------------------------------------

class Verdict(Score):
    """One hypothesis's NLI estimate as a Score: value = the share of its facts tagged supported (`estimate`),
    unscored when the model found no fact (never a silent 0); metadata = the mean probability of "supported"
    (`p`), how the probabilities were read (`source`: "sampled" when any fact's was), the number of facts and the
    facts themselves ([{"fact", "explanation", "tag", "p_supported", "p_source"}]), and for the variant "same"
    the refusal tag with its probability.

    Written as `verdict.columns("estimate", error="error")`: estimate, estimate_p, estimate_source,
    estimate_n_facts, estimate_facts, estimate_refusal, estimate_p_refusal, error."""

    def __init__(self, facts: list[dict], refusal: bool | None, p_refusal: float | None = None):
        p = sum(f["p_supported"] for f in facts) / len(facts) if facts else None
        sources = {f["p_source"] for f in facts}
        super().__init__(value=hypothesis_estimate(facts),
                         unscored=None if facts else "the model found no fact in this hypothesis",
                         metadata={"p": p, "source": "sampled" if "sampled" in sources else min(sources, default=None),
                                   "n_facts": len(facts), "facts": facts, "refusal": refusal, "p_refusal": p_refusal})

    facts = property(lambda self: self.metadata["facts"])
    refusal = property(lambda self: self.metadata["refusal"])
    p_refusal = property(lambda self: self.metadata["p_refusal"])
    estimate = property(lambda self: self.value)
    estimate_p = property(lambda self: self.metadata["p"])


def hypothesis_estimate(facts: list[dict]) -> float | None:
    if not facts:
        return None
    return sum(f["tag"] == ENTAILED for f in facts) / len(facts)


def pair_estimate(estimates: list[float | None]) -> float | None:
    """Mean over the hypotheses that got an estimate; None when none did."""
    known = [e for e in estimates if e is not None]
    return sum(known) / len(known) if known else None


def _facts_check(reply) -> str | None:
    facts = reply.get("facts") if isinstance(reply, dict) else None
    if not isinstance(facts, list):
        return 'the reply needs a list under "facts"'
    for i, f in enumerate(facts):
        if not isinstance(f, dict) or f.get("tag") not in TAGS:
            return f'fact {i + 1} needs a "tag" that is one of {list(TAGS)}'
    return None


def nli_messages(variant: str, premise: str, hypothesis: str, document: str | None = None) -> list[dict]:
    """System instructions, then the premise, then the hypothesis: calls sharing a premise
    share the whole prompt up to the hypothesis, which a llama.cpp backend reuses."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    source = render("nli_premise_source", document=document) + "\n" if document else ""
    return [{"role": "system", "content": template(NLI_SYSTEM[variant]).format()},
            {"role": "user", "content": render("nli_pair", source=source, premise=premise, hypothesis=hypothesis)}]


def judge_hypothesis(model: str, variant: str, premise: str, hypothesis: str, document: str | None = None,
                     cache_tag: str | None = None, max_tokens: int = NLI_TOKENS) -> Verdict:
    """Facts, explanations and tags, each tag with the probability of "supported" read at its first token
    (renormalized over the three tags; 1 or 0 from the tag itself, flagged, where there are no logprobs)."""
    reply, has_logprobs = complete_with_logprobs(model, nli_messages(variant, premise, hypothesis, document), NLI_STAGE,
                                                 nli_request(variant, cache_tag, max_tokens))
    facts = [dict(f) for f in reply.json["facts"]]
    for fact, read in zip(facts, read_values(reply, has_logprobs, "tag", TAGS, ENTAILED, [f["tag"] for f in facts])):
        fact.update(p_supported=read.score, p_source=read.source)
    if variant != "same":
        return Verdict(facts=facts, refusal=None)
    refusal = bool(reply.json.get("refusal"))
    (read,) = read_values(reply, has_logprobs, "refusal", ("true", "false"), "true", [str(refusal).lower()])
    return Verdict(facts=facts, refusal=refusal, p_refusal=read.score)


# -- refusal ------------------------------------------------------------------

def refusal_text(sentences: list[str]) -> str:
    """What the refusal tagger reads: the first two sentences."""
    return " ".join(sentences[:REFUSAL_SENTENCES])


def _refusal_check(n: int):
    count = _count_check("tags", n)

    def validate(reply) -> str | None:
        problem = count(reply)
        if problem:
            return problem
        ids = [t.get("id") if isinstance(t, dict) else None for t in reply["tags"]]
        if ids != list(range(1, n + 1)):
            return f"the ids must be 1 to {n} in order, got {ids}"
        return None
    return validate


def refusal_batch_prompt(texts: list[str]) -> str:
    """The exact prompt that tags a batch of texts as refusals or not."""
    return render("refusal_batch", n=len(texts), texts=_numbered(texts))


def tag_refusals(model: str, texts: list[str], cache_tag: str | None = None) -> list[Score]:
    """One batch (up to 8 texts): a Score per text, True where it is an answer refusal, with the probability of
    True (`p`) and how it was read (`source`: "logprobs", or "sampled" where the endpoint gave none).

    Raises ParseError when the reply, after one repair round, still has the
    wrong number of tags: the caller records the batch as failed.
    """
    if not texts:
        return []
    prompt = refusal_batch_prompt(texts)
    reply, has_logprobs = complete_with_logprobs(model, prompt, REFUSAL_STAGE, refusal_request(len(texts), cache_tag))
    tags = [bool(t["refusal"]) for t in reply.json["tags"]]
    reads = read_values(reply, has_logprobs, "refusal", ("true", "false"), "true", [str(t).lower() for t in tags])
    return [Score(tag, str(tag).lower(), metadata={"p": r.score, "source": r.source}) for tag, r in zip(tags, reads)]


# -- the requests each stage sends (the run's, and the plan's lookups: nli.experiment) -------------------------

def pronoun_request(n: int, cache_tag: str | None = None) -> Request:
    """A batch of `n` sentences with their pronouns replaced."""
    return Request(max_tokens=pronoun_budget(n), response_format=PRONOUN_SCHEMA,
                   validate=_count_check("sentences", n), cache_tag=cache_tag)


def nli_request(variant: str, cache_tag: str | None = None, max_tokens: int = NLI_TOKENS) -> Request:
    """One hypothesis's facts, explanations and tags (asked with logprobs where the endpoint gives them)."""
    return Request(max_tokens=max_tokens, response_format=NLI_SCHEMAS[variant], validate=_facts_check,
                   cache_tag=cache_tag)


def refusal_request(n: int, cache_tag: str | None = None) -> Request:
    """A batch of `n` texts tagged as refusals or not (asked with logprobs where the endpoint gives them)."""
    return Request(max_tokens=refusal_budget(n), response_format=REFUSAL_SCHEMA, validate=_refusal_check(n),
                   cache_tag=cache_tag)
