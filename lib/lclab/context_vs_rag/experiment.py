"""Notebook 02 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Design, Experiment, Series, register
from ..models import budget_counters
from ..planning.plan import JUDGE_PROMPT, JUDGE_REPLY_TOKENS, answers_and_judges, planned_embeddings, row
from ..qa import load_validated
from ..retrieval.chunking import Chunker
from ..qa.closed_book import closed_book_samples
from .parameters import Parameters
from .run import EXPERIMENT, prepare
from .sets import build_sets

RAG_QUESTION_TOKENS = 60  # the answer template and the question around the retrieved chunks


def plan(notebook: str, p: dict) -> list[dict]:
    """The long-context prompts exactly (as the run builds them); the RAG prompts from their chunk budget,
    since retrieval (an embedding model) is not run for a plan."""
    model, judge = p["model"], p["judge_model"] or p["model"]
    samples = 1 + p.get("self_consistency", 0)  # the verdict and its self-consistency samples
    _, pool, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    count, text = budget_counters(model)
    sets = build_sets(qa, pool, p["context_tokens"], p["noise_levels"], p["seed"], count, text)
    long_context = [s.input for s in prepare(sets) if s["method"] == "long_context"]
    rows = answers_and_judges(notebook, model, judge, long_context, p["max_answer_tokens"], samples)
    rows[0]["stage"], rows[1]["stage"] = "answer, long context", "judge, long context"
    rag_prompt = p["top_k"] * p["chunk_tokens"] + RAG_QUESTION_TOKENS
    rows += [row(notebook, "answer, RAG (estimated)", model, len(sets), 0, len(sets) * rag_prompt,
                 len(sets) * p["max_answer_tokens"]),
             row(notebook, "judge, RAG (estimated)", judge, samples * len(sets), 0,
                 samples * len(sets) * (JUDGE_PROMPT + 20 + p["max_answer_tokens"]),
                 samples * len(sets) * JUDGE_REPLY_TOKENS)]
    chunker = Chunker(p["chunk_tokens"], "tokens")  # every set's chunks and its question, embedded for RAG
    rows.append(planned_embeddings(notebook, p["embedder"], [c.text for s in sets for c in chunker.split(s.docs)]
                                   + [s.question for s in sets]))
    if p.get("closed_book"):  # the run's own closed-book samples: exact prompts, a judge call each
        closed = answers_and_judges(notebook, model, judge, [s.input for s in closed_book_samples(qa)],
                                    p["max_answer_tokens"], samples)
        rows += [dict(r, stage=f"{r['stage']}, closed book") for r in closed]
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
                  x_label="noise level (% of distractors)", cluster="qa_id", unit="QA pairs"),
    description="Long context vs RAG over the same nested document sets"))
