"""Notebook 02 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Design, Experiment, Series, register
from ..models import budget_counters
from ..planning.plan import planned_embeddings
from ..planning.stages import (Judged, answers_and_judges, estimated, named, planned_judges, reply_tokens,
                               template_prompt_tokens, text_tokens)
from ..prompts import render
from ..qa import load_validated
from ..qa.closed_book import closed_book_samples
from ..retrieval.chunking import Chunker
from ..scoring.judges import JUDGE_MAX_TOKENS, judge_requests
from .parameters import Parameters
from .run import EXPERIMENT, prepare
from .sets import build_sets


def plan(notebook: str, p: dict) -> list[dict]:
    """The run's own samples: long context's exact prompts (looked up in the cache) and their judges; RAG's
    answer prompts priced by their template with top_k of the set's own chunks at their mean size (retrieval, an
    embedding model, is not run for a plan) and their judges; the embedding stage; the closed-book arm."""
    model, judge = p["model"], p["judge_model"] or p["model"]
    judging = (judge_requests(p.get("self_consistency", 0)), JUDGE_MAX_TOKENS)
    _, pool, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    count, text = budget_counters(model)
    sets = build_sets(qa, pool, p["context_tokens"], p["noise_levels"], p["seed"], count, text)
    samples = prepare(sets)
    rows = answers_and_judges(notebook, EXPERIMENT, model, judge, [s for s in samples if s["method"] == "long_context"],
                              p["max_answer_tokens"], *judging)
    rows = [named(rows[0], "answer, long context"), named(rows[1], "judge, long context")]
    chunker = Chunker(p["chunk_tokens"], "tokens")
    chunks = {s.qa_id + str(s.noise_pct): chunker.split(s.docs) for s in sets}
    rag_prompts = [template_prompt_tokens(model, "answer_with_documents", {"documents": p["top_k"] * text_tokens(
        model, [render("document", index=1, text=c.text) for c in chunks[s.qa_id + str(s.noise_pct)]])},
        question=s.question) for s in sets]
    reply, source = reply_tokens(EXPERIMENT, "answer", model, p["max_answer_tokens"])
    rows.append(estimated(notebook, "answer, RAG", model, rag_prompts, reply, source))
    rows.append(planned_judges(notebook, EXPERIMENT, "judge", judge, "judge_correct", ("answer",),
                               [Judged({"question": s.question, "gold_answer": s.gold}) for s in sets],
                               "answer", model, p["max_answer_tokens"], *judging))
    rows[-1] = named(rows[-1], "judge, RAG")
    # every set's chunks and its question, embedded for RAG
    rows.append(planned_embeddings(notebook, p["embedder"], [c.text for cs in chunks.values() for c in cs]
                                   + [s.question for s in sets]))
    if p.get("closed_book"):  # the run's own closed-book samples: exact prompts, a judge call each
        closed = answers_and_judges(notebook, EXPERIMENT, model, judge, closed_book_samples(qa),
                                    p["max_answer_tokens"], *judging, stage="closed-book answer")
        rows += [named(closed[0], "answer, closed book"), named(closed[1], "judge, closed book")]
    return rows


def design(p: dict) -> Design:
    """The primary comparison: long context minus RAG, paired by QA pair over the noise levels."""
    _, _, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    return Design(units=len(qa), unit="QA pairs", items_per_unit=2 * len(p["noise_levels"]),
                  comparison="long context − RAG", contrast=("method", "long_context", "rag"))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="02_context_vs_rag", plan=plan, parameters=Parameters,
    judged_rate="answer correct (02)", design=design,
    comparable=("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "noise_levels", "seed", "store",
                "embedder", "chunk_tokens", "top_k", "max_answer_tokens"),
    series=Series(key=("qa_id", "noise_pct"), value="judge_correct", split=("method",), x="noise_pct",
                  value_label="judge accuracy",
                  x_label="noise level (% of distractors)", cluster="qa_id", unit="QA pairs",
                  labels=("answer_correct", ("question", "gold", "response"))),
    description="Long context vs RAG over the same nested document sets"))
