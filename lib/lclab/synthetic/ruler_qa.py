"""RULER's QA tasks with the lab's data: qa_1_pg (a reviewed Paul Graham QA pair, its passage the one gold document)
and qa_2_pg (a multi-chunk question, its three reference chunks the gold documents; three facts joined, not
multi-hop: any one part of its answer scores), each among distractor documents of the same corpus, in RULER's
QA prompt. They stand in for qa_1 (SQuAD) and qa_2 (HotpotQA), whose data RULER downloads at run time and no
installable package ships."""

from __future__ import annotations

import random
import warnings

from ..prompts import render
from .haystack import fit_by
from .once import built_once


def qa_prompt(task: str, i: int, rng: random.Random, budget: int, corpus: str, count, qa_path: str, multi_qa_path: str):
    """RULER's QA prompt: the gold documents among distractors, all shuffled, numbered "Document i:"."""
    question, answers, gold, others = (_pg_pair(corpus, qa_path, i) if task == "qa_1_pg"
                                       else _multi_chunk_question(corpus, multi_qa_path, i))
    others = rng.sample(others, len(others))
    state = rng.random()

    def prompt_with(k: int) -> str:
        docs = gold + others[:k]
        random.Random(f"{state}:{k}").shuffle(docs)
        context = "\n\n".join(f"Document {j}:\n{d}" for j, d in enumerate(docs, start=1))
        return render("ruler_qa", context=context, query=question)

    prompt, tokens = fit_by(prompt_with, len(others), count, budget)
    return prompt, tokens, answers


def available(task: str, corpus: str, qa_path: str, multi_qa_path: str) -> int:
    """Haystacks a QA stand-in can make (its questions); any number for the other tasks."""
    if task == "qa_1_pg":
        return len(_pg_pairs(corpus, qa_path)[1])
    if task == "qa_2_pg":
        return len(_multi_chunk(corpus, multi_qa_path)[1])
    return 10 ** 9


@built_once(4)
def _pg_pairs(corpus: str, qa_path: str):
    from ..qa.review import FewerPairsWarning, load_validated

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewerPairsWarning)  # every validated pair is wanted: the count is no news
        _, pool, pairs = load_validated(corpus, qa_path, 10 ** 6)
    return pool, pairs.reset_index(drop=True)


def _pg_pair(corpus: str, qa_path: str, i: int):
    from ..text.normalize import contains_answer

    pool, pairs = _pg_pairs(corpus, qa_path)
    pair = pairs.iloc[i]
    gold = next(d.text for d in pool if d.id == pair["doc_id"])
    others = [d.text for d in pool if d.id != pair["doc_id"] and not contains_answer(d.text, pair["answer"])]
    return pair["question"], [pair["answer"]], [gold], others


@built_once(4)
def _multi_chunk(corpus: str, multi_qa_path: str):
    from ..qa.multi_chunk import read_multi_chunk_file
    from ..retrieval.chunking import Chunker
    from ..text.corpus import load_corpus

    chunker = Chunker(200, "tokens")  # the chunker the shipped multi-chunk questions were made with
    chunks = chunker.split(load_corpus(corpus).documents)
    return chunks, read_multi_chunk_file(multi_qa_path, chunks, chunker).reset_index(drop=True)


def _multi_chunk_question(corpus: str, multi_qa_path: str, i: int):
    """A multi-chunk question: its three reference chunks are the gold documents; each part of its reference
    answer (parts split at ";") is one accepted answer, as RULER's qa reads any of its references."""
    chunks, questions = _multi_chunk(corpus, multi_qa_path)
    row = questions.iloc[i]
    gold_ids = set(row["relevant"])
    parts = [p.strip().rstrip(".") for p in row["answer"].split(";") if p.strip().rstrip(".")]
    return (row["question"], parts, [c.text for c in chunks if c.chunk_id in gold_ids],
            [c.text for c in chunks if c.chunk_id not in gold_ids])
