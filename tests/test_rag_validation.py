"""RAG validation's bookkeeping: curves from stored rankings, the reviewed multi-chunk file (no model needed)."""

import math

import pandas as pd
import pytest
from lclab.qa.multi_chunk import read_multi_chunk_file
from lclab.rag_validation import answer_quality, retrieval_curves, seed_numbers
from lclab.retrieval.chunking import Chunker
from lclab.stats import bootstrap_mean_ci
from lclab.text.corpus import load_corpus, passage_sha1

ITEMS = pd.DataFrame([
    {"qa_id": "s1", "set": "single", "relevant_chunks": ["a"], "retrieved": ["a", "b", "c"], "judge_correct": True,
     "relevant": True, "faithful": True},
    {"qa_id": "s2", "set": "single", "relevant_chunks": ["z"], "retrieved": ["b", "z", "c"], "judge_correct": False,
     "relevant": True, "faithful": None},
    {"qa_id": "m1", "set": "multi", "relevant_chunks": ["a", "b", "c"], "retrieved": ["a", "x", "c"],
     "judge_correct": True, "relevant": False, "faithful": True},
])


def test_curves_average_per_set_and_k():
    curves = retrieval_curves(ITEMS, 3).set_index(["set", "k"])
    assert curves.loc[("single", 1), "recall"] == 0.5  # s1 hit at rank 1, s2 at rank 2
    assert curves.loc[("single", 2), "recall"] == 1.0
    assert curves.loc[("single", 1), "precision"] == 0.5
    assert curves.loc[("multi", 3), "precision"] == pytest.approx(2 / 3)
    assert curves.loc[("multi", 3), "f1"] == pytest.approx(2 / 3)
    assert curves.loc[("single", 2), "mrr"] == pytest.approx((1 + 1 / 2) / 2)


def test_headline_has_the_seed_numbers():
    h = seed_numbers(retrieval_curves(ITEMS, 3)).set_index(["set", "metric"])["value"]
    assert h[("single", "recall@1")] == 0.5 and h[("single", "precision@1")] == 0.5
    assert h[("multi", "recall@3")] == pytest.approx(2 / 3) and h[("multi", "F1@3")] == pytest.approx(2 / 3)


def test_answer_quality_leaves_unscored_judgments_out():
    q = answer_quality(ITEMS).set_index(["set", "measure"])
    faithful = q.loc[("single", "faithfulness to retrieved chunks")]
    assert (faithful["n"], faithful["raw"], faithful["unscored"]) == (1, 1.0, 1)


def test_bootstrap_interval_brackets_the_mean_and_reproduces():
    values = [0, 1 / 3, 2 / 3, 1, 1, 2 / 3]
    lo, hi = bootstrap_mean_ci(values)
    assert lo < sum(values) / len(values) < hi
    assert (lo, hi) == bootstrap_mean_ci(values)
    assert bootstrap_mean_ci([0.5]) == (0.5, 0.5)
    assert all(math.isnan(x) for x in bootstrap_mean_ci([None]))


@pytest.fixture(scope="module")
def chunks():
    return Chunker(200).split(load_corpus().documents)


def test_the_shipped_multi_chunk_set_matches_the_corpus(chunks):
    df = read_multi_chunk_file("data/multi_chunk_qa/qa.csv", chunks, Chunker(200))
    assert len(df) >= 8 and (df["relevant"].map(len) == 3).all()
    by_id = {c.chunk_id: c for c in chunks}
    for ids in df["relevant"]:  # three consecutive chunks of one essay
        docs = {by_id[i].doc_id for i in ids}
        positions = [by_id[i].position for i in ids]
        assert len(docs) == 1 and positions == list(range(positions[0], positions[0] + 3))


def write(tmp_path, rows):
    path = tmp_path / "qa.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def row(chunks, ids, **over):
    by_id = {c.chunk_id: c for c in chunks}
    base = {"qa_id": "m-x", "chunker": "t200o0", "chunk_ids": ";".join(ids),
            "chunk_sha1s": ";".join(passage_sha1(by_id[i].text) for i in ids), "question": "Q?", "answer": "A.",
            "validated": "yes", "review_note": ""}
    return {**base, **over}


def test_multi_chunk_rows_need_exactly_three_current_chunks(tmp_path, chunks):
    ids = [c.chunk_id for c in chunks[:3]]
    with pytest.raises(ValueError, match="exactly 3 reference chunks, has 2"):
        read_multi_chunk_file(write(tmp_path, [row(chunks, ids[:2])]), chunks, Chunker(200))
    stale = row(chunks, ids, chunk_sha1s="000000000000;000000000000;000000000000")
    with pytest.raises(ValueError, match="no longer match the corpus"):
        read_multi_chunk_file(write(tmp_path, [stale]), chunks, Chunker(200))
    with pytest.raises(ValueError, match="made with chunker t200o0, this run chunks as c2000o0"):
        read_multi_chunk_file(write(tmp_path, [row(chunks, ids)]), chunks, Chunker(2000, "chars"))
    with pytest.raises(ValueError, match="has not been reviewed"):
        read_multi_chunk_file(write(tmp_path, [row(chunks, ids, validated="")]), chunks, Chunker(200))


def test_a_quick_run_indexes_the_questions_documents_and_others_up_to_n_and_plans_the_same(chunks):
    from lclab.planning.experiment_plan import plan_notebook
    from lclab.rag_validation.run import indexed_chunks, subset_label
    from lclab.runs.notebooks import NOTEBOOKS, notebook_defaults

    questions = [["vw::0", "vw::1", "vw::2"], ["aord::7", "aord::8", "aord::9"]]
    assert indexed_chunks(chunks, questions, 0, 0) == chunks and subset_label(chunks, 0) == ""
    part = indexed_chunks(chunks, questions, 5, 0)
    docs = {c.doc_id for c in part}
    assert len(docs) == 5 and {"vw", "aord"} <= docs
    assert part == [c for c in chunks if c.doc_id in docs]  # whole documents, in corpus order
    assert {c.doc_id for c in indexed_chunks(chunks, questions, 1, 0)} == {"vw", "aord"}  # never fewer than needed
    assert {c.doc_id for c in indexed_chunks(chunks, questions, 5, 1)} != docs  # the others are drawn by seed
    assert subset_label(part, 5) != subset_label(indexed_chunks(chunks, questions, 5, 1), 5)
    # The plan embeds exactly the chunks the run indexes, the question and the store's dimension probe.
    params = {"model": "local/qwen2.5-coder-0.5b", "n_single": 0, "n_multi": 1, "n_documents": 5,
              "claim_metrics": False}
    rows = plan_notebook("06_rag_validation", params, notebook_defaults(NOTEBOOKS / "06_rag_validation.ipynb"))
    first = indexed_chunks(chunks, [questions[0]], 5, 0)
    assert next(r for r in rows if r["stage"] == "embed")["calls"] == len(first) + 2


def test_every_judge_kind_is_asked_whatever_another_said_and_their_errors_are_joined(monkeypatch):
    """06's judges run together: one kind's unreadable verdict is the row's error, and the other kinds are still
    asked (each kind's rate reads every row its own verdict was read on)."""
    from lclab.pipeline import Given, Stage
    from lclab.rag_validation import run as rag_run

    asked = []

    def kind(name, error):
        def write(given, s, row):
            asked.append(name)
            return {name: True, "error": error}
        return None, Stage(name, role="judge", write=write)

    monkeypatch.setattr(rag_run, "judges", lambda: (kind("first", "first_error: no JSON"), kind("second", None),
                                                      kind("third", "third_error: no verdict")))
    got = rag_run.every_verdict(Given(None, "fake/judge"), None, {"response": "r"})
    assert asked == ["first", "second", "third"]
    assert got == {"first": True, "second": True, "third": True,
                   "error": "first_error: no JSON; third_error: no verdict"}
