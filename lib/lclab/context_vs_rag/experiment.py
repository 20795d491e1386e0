"""Notebook 02 as one registered experiment: the sets its stages ask (planned by the generic planner: a retrieving
arm's prompt holds what retrieval finds, declared as its answer stage's `Retrieved`), how its runs are compared."""

from __future__ import annotations

from ..experiments import Design, Experiment, SampleSet, Series, register
from ..planning.plan import one_at_a_time_local
from ..prompts import render
from ..qa import closed_book, load_validated
from ..retrieval.chunking import Chunker
from ..runs.declared import declared
from ..scoring.judge_card import card_rows
from ..text.context import IF_ABSENT
from .parameters import Parameters
from .run import EXPERIMENT, document_sets, prepare, run_context_vs_rag
from .stages import ANSWER, JUDGE, retrieving_answer

# Each retrieving arm: the plan rows' name, and whether its prompt always says what to reply when the chunks do not
# answer (Self-Route's first call: its route is that reply). That arm is priced with no KV-cache reuse, as its
# calls follow the long context's fallbacks in no order the plan can foresee.
ARMS = {"rag": ("RAG", False), "frontier": ("RAG at the frontier's other k", False),
        "self_route": ("Self-Route, chunks first", True)}


def sample_sets(p: Parameters) -> list[SampleSet]:
    """The run's own samples, as its stages ask them: long context's exact prompts (looked up in the cache) and
    their judges; unanswerable sets answered but never judged; every retrieving arm's answers by the template with
    k of its set's own chunks (retrieval, an embedding model, is not run for a plan) and their judges; the
    closed-book arm. Self-Route's fallback is the long-context arm's own call: a cache hit, not priced again. One
    at a time on an embedded model, a long-context call keeps what another set's prompt left in the KV cache, and
    a retrieving one the template's opening and the chunks it shares with the k asked just before it."""
    validated = load_validated(p.corpus, p.qa_path, p.n_qa)
    samples = prepare(p, validated)  # the run's own trials
    if_absent = IF_ABSENT if p.unanswerable_share else ""
    local = one_at_a_time_local(ANSWER.model(p), p.max_workers)
    before = render("answer_with_documents", documents=render("document", index=0, text="alpha"), question="alpha",
                    if_absent=if_absent) if local else None  # another set's prompt, as far as two prompts share

    def long_context(answerable: bool) -> list:
        return [s for s in samples if s["method"] == "long_context" and s["answerable"] == answerable]

    def held(mine: list) -> list:  # every long-context call but the run's first follows another set's prompt
        return [None if s is samples[0] else before for s in mine]

    answerable, unanswerable = long_context(True), long_context(False)
    sets = [SampleSet(answerable, (ANSWER, JUDGE), ("answer, long context", "judge, long context"), False,
                      held(answerable))]
    if unanswerable:
        sets.append(SampleSet(unanswerable, (ANSWER,), ("answer, long context, unanswerable (refusal rule, no "
                                                        "judge)",), False, held(unanswerable)))
    chunker = Chunker(p.chunk_tokens, "tokens")
    pools = {id(s): [c.text for c in chunker.split(s.docs)] for s in document_sets(samples)}
    for arm, (label, says_if_absent) in ARMS.items():
        mine = [s for s in samples if s["k"] is not None and _arm(s["method"]) == arm]
        if not mine:
            continue
        # Self-Route reads RAG's top_k chunks first; where the RAG arm asks with the refusal phrase too (the
        # unanswerable sets are on), that first call is RAG's own prompt: a cache hit, no time.
        same_as_rag = says_if_absent and if_absent == IF_ABSENT
        stage = retrieving_answer(IF_ABSENT if says_if_absent else if_absent, pools,
                                  None if says_if_absent else _shared(mine, p.top_k, pools))
        sets.append(SampleSet(mine, (stage, JUDGE), (f"answer, {label}" + (" = RAG's calls" if same_as_rag else ""),
                                                     f"judge, {label}"), repeated=1.0 if same_as_rag else 0.0))
    if p.closed_book:  # the run's own closed-book samples: exact prompts, a judge call each
        sets.append(SampleSet(closed_book.closed_book_samples(validated[2]), closed_book.STAGES,
                              ("answer, closed book", "judge, closed book"), in_order=False))
    return sets


def _shared(mine: list, top_k: int, pools: dict) -> callable:
    """Per retrieving call, the chunks it shares with the call just before it: the run answers a set's methods
    back to back (long context, RAG, the frontier's other k: as_samples), so one of the other k shares the chunks
    of the k asked just before it (RAG's top_k first); RAG's own call shares none (only the template's opening)."""
    asked, shared = {}, {}
    for s in mine:
        k = min(s["k"], len(pools[id(s.source)]))  # a set with fewer chunks returns them all
        shared[id(s)] = min(k, asked.get(id(s.source), top_k)) if s["method"].startswith("rag@") else 0
        asked[id(s.source)] = k
    return lambda s: shared[id(s)]


def embedded(p: Parameters, sets: list[SampleSet]) -> list[str]:
    """Every document set's chunks and its question, embedded for RAG (each set's chunks as its retrieving stage
    reads them)."""
    pools = {}
    for part in sets:
        for stage in part.stages:
            for s in part.samples if stage.retrieved is not None else ():
                pools.setdefault(id(s.source), (s.source.question, stage.retrieved.pool(s)))
    return [t for _, pool in pools.values() for t in pool] + [question for question, _ in pools.values()]


def _arm(method: str) -> str:
    return "frontier" if method.startswith("rag@") else method


def design(given: dict) -> Design:
    """The primary comparison: long context minus RAG, paired by QA pair over the noise levels."""
    p = declared(Parameters, given)
    _, _, qa = load_validated(p.corpus, p.qa_path, p.n_qa)
    return Design(units=len(qa), unit="QA pairs", items_per_unit=2 * len(p.noise_levels),
                  comparison="long context − RAG", contrast=("method", "long_context", "rag"))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="02_context_vs_rag", parameters=Parameters, prepare=prepare,
    run=run_context_vs_rag, stages=(ANSWER, JUDGE), sample_sets=sample_sets, embedded=embedded,
    cards=card_rows(EXPERIMENT, JUDGE, "answer_correct"),
    judged_rate="answer correct (02)", design=design,
    comparable=("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "noise_levels", "seed", "store",
                "embedder", "chunk_tokens", "top_k", "max_answer_tokens", "unanswerable_share"),
    series=Series(key=("qa_id", "noise_pct"), value="judge_correct", split=("method",), x="noise_pct",
                  value_label="judge accuracy",
                  x_label="noise level (% of distractors)", cluster="qa_id", unit="QA pairs",
                  labels=("answer_correct", ("question", "gold", "response"))),
    description="Long context vs RAG over the same nested document sets"))
