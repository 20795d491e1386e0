import pandas as pd
import pytest
from lclab.qa.review import REVIEW_COLUMNS, read_qa_file, validated_pairs
from lclab.text.corpus import Document, load_corpus, passage_sha1, passages

P = {"x#0": Document("x#0", "Ada wrote the first program.", "x.txt"),
     "y#0": Document("y#0", "The bridge opened in 1883.", "y.txt")}


def write(tmp_path, rows):
    path = tmp_path / "qa.csv"
    base = {"passage_chars": 1200, "answer_in_source": True, "llm_supported": True, "review_note": ""}
    pd.DataFrame([{**base, **r} for r in rows], columns=REVIEW_COLUMNS).to_csv(path, index=False)
    return path


def row(qa_id, doc_id, validated):
    return {"qa_id": qa_id, "doc_id": doc_id, "passage_sha1": passage_sha1(P[doc_id].text),
            "question": "?", "answer": "!", "validated": validated}


def test_only_rows_marked_yes_are_used(tmp_path):
    df = read_qa_file(write(tmp_path, [row("a", "x#0", "yes"), row("b", "y#0", "no")]))
    assert validated_pairs(df, P)["qa_id"].tolist() == ["a"]


def test_unreviewed_file_is_refused_unless_allowed(tmp_path):
    df = read_qa_file(write(tmp_path, [row("a", "x#0", ""), row("b", "y#0", "")]))
    with pytest.raises(ValueError, match="has not been reviewed"):
        validated_pairs(df, P)
    assert len(validated_pairs(df, P, allow_unreviewed=True)) == 2


def test_bad_marks_and_stale_passages_are_errors(tmp_path):
    with pytest.raises(ValueError, match="yes/no/empty"):
        read_qa_file(write(tmp_path, [row("a", "x#0", "maybe")]))
    stale = {**row("a", "x#0", "yes"), "passage_sha1": "000000000000"}
    with pytest.raises(ValueError, match="no longer match the corpus"):
        validated_pairs(read_qa_file(write(tmp_path, [stale])), P)


def test_shipped_paul_graham_set_matches_the_installed_essays():
    df = read_qa_file("data/pg_qa/qa.csv")
    pool = passages(load_corpus("paul_graham"), int(df["passage_chars"].iloc[0]))
    qa = validated_pairs(df, {p.id: p for p in pool})
    assert len(qa) >= 10
    assert qa["qa_id"].is_unique
