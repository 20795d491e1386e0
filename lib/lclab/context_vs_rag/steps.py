"""The steps of one 02 trial, for every arm: retrieve (the arms that read chunks), answer, judge.

    long_context  the set's own answer prompt
    rag, rag@k    the top-k chunks of the set's index, in rank order
    self_route    the top_k chunks with leave to say they do not answer; if the model says so (the refusal
                  rule), the long context's own prompt: the long_context arm's call, a cache hit
An unanswerable set is answered like any other and never judged: the refusal rule (`abstained`) scores it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..retrieval.chunking import Chunker
from ..runs.folders import fingerprint
from ..runs.runner import answer_columns
from ..runs.samples import Sample
from ..scoring.judge_kinds import correctness_columns, judge_correct
from ..scoring.judges import JUDGE
from ..scoring.refusal import refusal_cue
from ..text.context import IF_ABSENT, answer_prompt
from .sets import DocumentSet, retrieve
from .stages import ANSWER


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

    def retrieval(self, sample: Sample, row: dict) -> dict:
        return {} if sample["k"] is None else retrieval_columns(sample.source, retrieve(
            sample.source, self.store, self.embedder, self.chunker, sample["k"], self.index_dir))

    def _complete(self, prompt: str):
        return ANSWER.send(self, prompt)

    def _columns(self, reply) -> dict:
        out = answer_columns(reply)
        if self.if_absent:
            out.update(refusal_cue(reply.text).columns("abstained", explanation="abstained_phrase"))
        return out

    def answer(self, sample: Sample, row: dict) -> dict:
        doc_set, method = sample.source, sample["method"]
        if method == "long_context":
            return self._columns(self._complete(sample.input)) | {"position": doc_set.answer_position()}
        chunks = {c.chunk_id: c for c in self.chunker.split(doc_set.docs)}
        read = [chunks[i] for i in row["retrieved"]]  # the chunks the retrieval step wrote down, in its order
        if method != "self_route":
            return (self._columns(self._complete(answer_prompt(read, doc_set.question, self.if_absent)))
                    | {"position": doc_set.answer_position(read)})
        first = self._complete(answer_prompt(read, doc_set.question, IF_ABSENT))
        routed = refusal_cue(first.text).value == 1.0
        final = self._complete(answer_prompt(doc_set.docs, doc_set.question, self.if_absent)) if routed else first
        return {**self._columns(final), "routed": routed, "route_reply": first.text,
                "position": doc_set.answer_position(None if routed else read),
                "prompt_tokens": (first.prompt_tokens or 0) + ((final.prompt_tokens or 0) if routed else 0)}

    def judge(self, sample: Sample, row: dict) -> dict:
        doc_set = sample.source
        if not doc_set.answerable:  # the refusal rule decides (answer step); there is no gold to judge against
            return {}
        verdict = judge_correct(self.judge_model, doc_set.question, row["response"], doc_set.gold,
                                self.self_consistency)
        return correctness_columns(verdict, row["response"], doc_set.gold)
