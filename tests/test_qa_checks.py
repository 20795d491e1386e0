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
    assert len(kept) == 1 and removed == {"question_form": 1, "short_answer": 0, "answer_grounded": 1,
                                          "answer_in_question": 0, "self_contained": 0, "round_trip": 0,
                                          "duplicate": 0}
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


def test_candidates_that_all_fail_a_check_are_asked_again_naming_it_up_to_the_asks_allowed(tmp_path, monkeypatch):
    """On the fake model (whose questions never end in "?"), every candidate fails the question check: the
    passage is asked MAX_ASKS times, the again-conversation quoting the reply and naming the check; the plan
    builds that conversation exactly once the replies are cached."""
    from lclab.models import cached
    from lclab.qa.generate import GENERATION, MAX_ASKS, PROBLEMS, again_messages, generate_pair, generation_prompt
    from lclab.qa.planned import planned_generation
    from lclab.text.corpus import Document

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    passage = Document("d1", "The licence grants a worldwide, royalty-free patent licence to every contributor. " * 4,
                       "licence.txt")
    pair = generate_pair("fake/answerer", passage)
    assert pair["asks"] == MAX_ASKS and pair["first_failed_check"] == "question_form"
    again = again_messages(generation_prompt(passage), '{"pairs": []}', "question_form")
    assert again[-1]["content"].startswith("That pair cannot be used: " + PROBLEMS["question_form"])
    assert again[1]["content"] == '{"pairs": []}'
    rows, pairs = planned_generation("nb", "make_qa_set", "fake/answerer", [passage])
    asked = {r["gateway_stage"]: (r["calls"], r["cached"]) for r in rows}
    assert asked["qa_generation again"] == (MAX_ASKS - 1, MAX_ASKS - 1)  # each conversation built and found
    assert pairs[0] == {"question": pair["question"], "answer": pair["answer"], "kept": False}
    assert cached("fake/answerer", generation_prompt(passage), GENERATION) is not None


def test_a_pair_asked_again_is_priced_after_the_first_turn_a_local_model_still_holds(tmp_path, monkeypatch):
    """One passage at a time, the embedded model still holds a conversation's first turn (the generation prompt)
    when the pair is asked again: the plan prices only what follows it. With passages asked concurrently it holds
    another passage's prompt: every token is read. Same calls and tokens either way, not the same time."""
    from lclab.qa.planned import planned_generation
    from lclab.text.corpus import Document

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))  # nothing cached: the asked-again calls are estimated
    text = ("The committee met in the old library every Tuesday. It kept the minutes in a green ledger, and the "
            "treasurer read the accounts aloud before any vote was taken. ") * 12  # a passage of ~500 tokens
    passages = [Document(f"d{i}", text.replace("Tuesday", day), f"f{i}.txt")
                for i, day in enumerate(("Monday", "Tuesday", "Friday"))]

    def asked_again(workers):
        rows, _ = planned_generation("nb", "make_qa_set", "local/qwen2.5-coder-0.5b", passages, workers=workers)
        return next(r for r in rows if r["gateway_stage"] == "qa_generation again")

    alone, concurrent = asked_again(1), asked_again(2)
    assert alone["calls"] == concurrent["calls"] > 0 and alone["prompt_tokens"] == concurrent["prompt_tokens"]
    assert alone["seconds"] < 0.8 * concurrent["seconds"]
