"""Notebook 02 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Design, Experiment, Series, register
from ..models.backends import shared_prefix_tokens
from ..planning.plan import one_at_a_time_local, planned_embeddings
from ..planning.experiment_plan import planned_stages
from ..planning.priced import (Judged, Read, estimated, named, planned_judges, reply_tokens, template_prompt_tokens,
                               text_tokens)
from ..prompts import render
from ..qa import closed_book, load_validated
from ..retrieval.chunking import Chunker
from ..runs.declared import declared
from ..scoring.judge_card import planned_card
from ..text.context import IF_ABSENT
from .parameters import Parameters
from .run import EXPERIMENT, document_sets, prepare, run_context_vs_rag
from .stages import ANSWER, JUDGE


def plan(notebook: str, given: dict) -> list[dict]:
    """The run's own samples: long context's exact prompts (looked up in the cache) and their judges; every
    retrieving arm's answer prompts (RAG, the frontier's other k, Self-Route's first call) priced by their
    template with k of the set's own chunks at their mean size (retrieval, an embedding model, is not run for a
    plan) and their judges; unanswerable sets answered but never judged; the embedding stage; the closed-book
    arm. Self-Route's fallback is the long-context arm's own call: a cache hit, not priced again. One at a time on
    an embedded model, each answer prompt is priced after what the call before left in the KV cache (_kept)."""
    p = declared(Parameters, given)
    model, judge = ANSWER.model(p), JUDGE.model(p)
    validated = load_validated(p.corpus, p.qa_path, p.n_qa)
    qa = validated[2]
    samples = prepare(p, validated)  # the run's own trials
    sets = document_sets(samples)
    if_absent = IF_ABSENT if p.unanswerable_share else ""
    reuse = one_at_a_time_local(model, p.max_workers)
    before, opening, heading = _openings(model, if_absent) if reuse else (None, 0, 0)
    long = [s for s in samples if s["method"] == "long_context"]

    def held(mine: list) -> list:  # what the model read before each long-context call: another set's last prompt
        return [None if s is samples[0] else before for s in mine]

    answerable = [s for s in long if s["answerable"]]
    rows = planned_stages(notebook, EXPERIMENT, p, answerable, (ANSWER, JUDGE), held=held(answerable))
    rows = [named(rows[0], "answer, long context"), named(rows[1], "judge, long context")]
    if unanswerable := [s for s in long if not s["answerable"]]:
        rows += [named(r, "answer, long context, unanswerable (refusal rule, no judge)") for r in planned_stages(
            notebook, EXPERIMENT, p, unanswerable, (ANSWER,), held=held(unanswerable))]
    # The retrieving arms' prompts hold what retrieval finds (an embedding model, not run for a plan): priced by
    # the template, the declared exception (docs/layout.md).
    chunker = Chunker(p.chunk_tokens, "tokens")
    chunks = {(s.qa_id, s.noise_pct): chunker.split(s.docs) for s in sets}
    reply, source = reply_tokens(EXPERIMENT, ANSWER.name, model, p.max_answer_tokens)
    arms = {"rag": "RAG", "frontier": "RAG at the frontier's other k", "self_route": "Self-Route, chunks first"}
    chunk_tokens = {key: text_tokens(model, [render("document", index=1, text=c.text) for c in found])
                    for key, found in chunks.items()}  # a retrieved chunk's mean tokens, per set
    for arm, label in arms.items():
        mine = [s for s in samples if s["k"] is not None and _arm(s["method"]) == arm]
        if not mine:
            continue
        prompts, retrieved = _retrieving_prompts(model, mine, chunks, chunk_tokens,
                                                 IF_ABSENT if arm == "self_route" else if_absent)
        # Self-Route reads RAG's top_k chunks first; where the RAG arm asks with the refusal phrase too (the
        # unanswerable sets are on), its first call is RAG's own prompt: a cache hit, no time.
        same_as_rag = arm == "self_route" and if_absent == IF_ABSENT
        kept = [0] * len(mine) if arm == "self_route" else _kept(mine, retrieved, p.top_k, opening, heading)
        rows.append(estimated(notebook, f"answer, {label}" + (" = RAG's calls" if same_as_rag else ""), model,
                              prompts, reply, source, repeated=1.0 if same_as_rag else 0.0,
                              request=ANSWER.requests(p)[0], kept=kept if reuse else None))
        judged = [s for s in mine if s["answerable"]]
        if judged:
            rows.append(named(planned_judges(notebook, EXPERIMENT, JUDGE, p, [Judged(JUDGE.known(s)) for s in judged],
                                             Read(ANSWER.name, model, p.max_answer_tokens)), f"judge, {label}"))
    # every set's chunks and its question, embedded for RAG
    rows.append(planned_embeddings(notebook, p.embedder, [c.text for cs in chunks.values() for c in cs]
                                   + [s.question for s in sets]))
    if p.closed_book:  # the run's own closed-book samples: exact prompts, a judge call each
        closed = planned_stages(notebook, EXPERIMENT, p, closed_book.closed_book_samples(qa), closed_book.STAGES)
        rows += [named(closed[0], "answer, closed book"), named(closed[1], "judge, closed book")]
    return rows + [planned_card(notebook, EXPERIMENT, judge, "answer_correct", p.card_texts)]


def _retrieving_prompts(model: str, mine: list, chunks: dict, chunk_tokens: dict,
                        if_absent: str) -> tuple[list[float], list[tuple[int, float]]]:
    """Per call of a retrieving arm: its prompt's tokens, by the template with the chunks it reads (k, or all its
    set has) at their set's mean size; and (those chunks, that size)."""
    keys = [(s.source.qa_id, s["noise_pct"]) for s in mine]
    retrieved = [(min(s["k"], len(chunks[key])), chunk_tokens[key]) for s, key in zip(mine, keys)]
    prompts = [template_prompt_tokens(model, "answer_with_documents", {"documents": k * tokens},
                                      question=s.source.question, if_absent=if_absent)
               for s, (k, tokens) in zip(mine, retrieved)]
    return prompts, retrieved


def _openings(model: str, if_absent: str) -> tuple[str, int, int]:
    """(an answer prompt, the tokens every answer prompt of the run starts with up to its first document's text,
    and of those the first document's heading): the template's opening a call keeps from the one before it."""
    def prompt(text: str, heading: bool = True) -> str:
        documents = render("document", index=0, text=text) if heading else text
        return render("answer_with_documents", documents=documents, question=text, if_absent=if_absent)

    opening = shared_prefix_tokens(model, prompt("alpha"), prompt("beta"))
    bare = shared_prefix_tokens(model, prompt("alpha", heading=False), prompt("beta", heading=False))
    return prompt("alpha"), opening, opening - bare


def _kept(mine: list, retrieved: list[tuple[int, float]], top_k: int, opening: int, heading: int) -> list[float]:
    """Per retrieving call, the prompt tokens the model keeps from the call before. The run answers a set's
    methods back to back (long context, RAG, the frontier's other k: as_samples), so every prompt keeps the
    template's opening, and one of the other k also the chunks it shares with the k asked just before it."""
    asked, kept = {}, []
    for s, (k, tokens) in zip(mine, retrieved):
        shared = min(k, asked.get(id(s.source), top_k)) if s["method"].startswith("rag@") else 0
        kept.append(opening + shared * tokens - (heading if shared else 0))
        asked[id(s.source)] = k
    return kept


def _arm(method: str) -> str:
    return "frontier" if method.startswith("rag@") else method


def design(given: dict) -> Design:
    """The primary comparison: long context minus RAG, paired by QA pair over the noise levels."""
    p = declared(Parameters, given)
    _, _, qa = load_validated(p.corpus, p.qa_path, p.n_qa)
    return Design(units=len(qa), unit="QA pairs", items_per_unit=2 * len(p.noise_levels),
                  comparison="long context − RAG", contrast=("method", "long_context", "rag"))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="02_context_vs_rag", plan=plan, parameters=Parameters, prepare=prepare,
    run=run_context_vs_rag,
    judged_rate="answer correct (02)", design=design,
    comparable=("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "noise_levels", "seed", "store",
                "embedder", "chunk_tokens", "top_k", "max_answer_tokens", "unanswerable_share"),
    series=Series(key=("qa_id", "noise_pct"), value="judge_correct", split=("method",), x="noise_pct",
                  value_label="judge accuracy",
                  x_label="noise level (% of distractors)", cluster="qa_id", unit="QA pairs",
                  labels=("answer_correct", ("question", "gold", "response"))),
    description="Long context vs RAG over the same nested document sets"))
