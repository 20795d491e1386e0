"""The automatic QA checks can fail: a copied sentence is no question, a paragraph is no factoid, an answer whose
words are not in the passage is made up; and on the shipped reviewed set they keep the pairs a maintainer kept."""

import pandas as pd
from lclab.qa.checks import apply_checks, first_failed
from lclab.qa.review import read_qa_file
from lclab.text.corpus import load_corpus, passages

PASSAGE = ("The zcat command is identical to gunzip -c. It writes the uncompressed data to standard output and "
           "leaves the compressed file in place. On some systems it is installed as gzcat.")


def pair(question, answer, **extra):
    return {"question": question, "answer": answer, "passage": PASSAGE, "answer_in_source": False,
            "llm_supported": True, **extra}


def test_each_check_fails_on_what_it_is_for():
    assert first_failed(pair("The zcat command is identical to gunzip -c.", "yes")) == "question_form"
    assert first_failed(pair("The zcat command is identical to gunzip -c?", "yes")) == "question_form"  # copied
    assert first_failed(pair("What is zcat identical to?", "It is identical to gunzip with the -c option, "
                             "which writes the data to standard output and keeps the file")) == "short_answer"
    assert first_failed(pair("What is zcat identical to?", "zcat and gunzip are different tools")) \
        == "answer_grounded"
    assert first_failed(pair("What is zcat identical to?", "gunzip -c")) is None


def test_apply_checks_counts_what_each_check_removed():
    pairs = pd.DataFrame([pair("What is zcat identical to?", "gunzip -c"),
                          pair("Where does zcat write?", "to a remote tape archive"),
                          pair("zcat is gzcat on some systems.", "yes")])
    kept, rejected, removed = apply_checks(pairs)
    assert len(kept) == 1 and removed == {"question_form": 1, "short_answer": 0, "answer_grounded": 1}
    assert sorted(rejected["failed_check"]) == ["answer_grounded", "question_form"]


def test_on_the_shipped_reviewed_set_the_checks_keep_every_pair_marked_yes():
    qa = read_qa_file("data/pg_qa/qa.csv")
    pool = {p.id: p.text for p in passages(load_corpus("paul_graham"), int(qa["passage_chars"].iloc[0]))}
    rows = qa.assign(passage=qa["doc_id"].map(pool),
                     answer_in_source=qa["answer_in_source"].astype(str).str.lower() == "true")
    failed = pd.Series([first_failed(r) for r in rows.to_dict("records")])
    marked = rows["validated"].str.lower().to_numpy()
    assert failed[marked == "yes"].isna().all()
    assert failed[marked == "no"].notna().sum() >= len(failed[marked == "no"]) // 2
