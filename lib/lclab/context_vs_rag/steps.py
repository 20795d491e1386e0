"""The stages of one 02 trial, for every arm: retrieve (the arms that read chunks), answer, judge.

    long_context  the set's own answer prompt
    rag, rag@k    the top-k chunks of the set's index, in rank order
    self_route    the top_k chunks with leave to say they do not answer; if the model says so (the refusal
                  rule), the long context's own prompt: the long_context arm's call, a cache hit
An unanswerable set is answered like any other and never judged: the refusal rule (`abstained`) scores it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..pipeline import Given, Stage
from ..retrieval.chunking import Chunker
from ..runs.folders import fingerprint
from ..runs.runner import answer_columns
from ..runs.samples import Sample
from ..scoring.judges import JUDGE
from ..scoring.refusal import refusal_cue
from ..text.context import IF_ABSENT, answer_prompt, format_documents
from .sets import DocumentSet, retrieve
from .stages import ANSWER, JUDGE as JUDGED, retrieving_answer


def retrieval_columns(doc_set: DocumentSet, got: dict) -> dict:
    """What a retrieving trial's first step writes down: the chunk ids in rank order (its answer step reads them)
    and whether the answer passage was among them (None for an unanswerable set)."""
    ids = [h.chunk_id for h in got["hits"]]
    found = any(i.startswith(doc_set.answer_id + "::") for i in ids) if doc_set.answerable else None
    return {"retrieved": ids, "answer_doc_retrieved": found}


@dataclass
class TrialSteps:
    model: str
    judge_model: str
    max_answer_tokens: int
    self_consistency: int
    store: str
    embedder: str
    chunker: Chunker
    index_dir: Path
    # Said by every answer prompt once some sets cannot be answered (the prompt must not tell the two apart);
    # "" keeps the seed's prompt.
    if_absent: str = ""
    max_workers: int = 1

    def key(self, sample: Sample) -> tuple:
        s, k = sample.source, sample["k"]
        settings = (self.model, self.judge_model, self.max_answer_tokens, JUDGE, self.self_consistency) + (
            (self.if_absent,) if self.if_absent else ())
        made_with = [settings, [d.id for d in s.docs], s.question] + (
            [(self.store, self.embedder, self.chunker.name, k)] if k is not None else [])
        return (s.qa_id, s.noise_pct, sample["method"], fingerprint(*made_with))

    def describe(self, sample: Sample) -> dict:
        s = sample.source
        return {"n_distractors": s.n_distractors, "question": s.question, "gold": sample.target, "model": self.model,
                "judge_model": self.judge_model, "k": sample["k"], "answerable": s.answerable}

    def complete(self, prompt: str):
        return ANSWER.send(self, prompt)

    def columns(self, reply) -> dict:
        """An answer's shared columns, and with unanswerable sets in the run whether it abstained."""
        out = answer_columns(reply)
        if self.if_absent:
            out.update(refusal_cue(reply.text).columns("abstained", explanation="abstained_phrase"))
        return out


def retrieved(given: Given, sample: Sample, row: dict) -> dict:
    """A retrieving arm's top-k chunks of its set's index (nothing for long context, which reads every document)."""
    t = given.p
    return {} if sample["k"] is None else retrieval_columns(sample.source, retrieve(
        sample.source, t.store, t.embedder, t.chunker, sample["k"], t.index_dir))


def answered(given: Given, sample: Sample, row: dict) -> dict:
    """The arm's answer: its own prompt, the chunks the retrieval stage wrote down (in their order), or, for
    self-route, those chunks with leave to say they do not answer and, if the model says so, the long context."""
    t, doc_set, method = given.p, sample.source, sample["method"]
    if method == "long_context":
        return t.columns(t.complete(sample.input)) | {"position": doc_set.answer_position()}
    chunks = {c.chunk_id: c for c in t.chunker.split(doc_set.docs)}
    read = [chunks[i] for i in row["retrieved"]]
    found = format_documents(read)  # the chunks in rank order, each under its heading: the declared slot's text
    if method != "self_route":
        return (t.columns(t.complete(retrieving_answer(t.if_absent).with_retrieved(sample, found)))
                | {"position": doc_set.answer_position(read)})
    first = t.complete(retrieving_answer(IF_ABSENT).with_retrieved(sample, found))
    routed = refusal_cue(first.text).value == 1.0
    final = t.complete(answer_prompt(doc_set.docs, doc_set.question, t.if_absent)) if routed else first
    return {**t.columns(final), "routed": routed, "route_reply": first.text,
            "position": doc_set.answer_position(None if routed else read),
            "prompt_tokens": (first.prompt_tokens or 0) + ((final.prompt_tokens or 0) if routed else 0)}


# A trial's stages as the runner executes them (Given: the run's TrialSteps and its judge): retrieval first (cheap,
# and it needs the embedder, not the LLM), then every answer, then the judge (an unanswerable set is not judged:
# the refusal rule, written by the answer, scores it).
TRIAL = (Stage("retrieve", role="retrieval", workers=1, write=retrieved), ANSWER.but(write=answered), JUDGED)
