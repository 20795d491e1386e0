"""Long context vs RAG: the document sets the two methods share (no model needed)."""

import pandas as pd
import pytest
from lclab.context_vs_rag import build_sets, n_at_level
from lclab.text.corpus import Document


def words(text: str) -> int:
    return len(text.split())


def pool():
    answer = Document("ans#0", "The launch code is 4711. " * 5, "ans.txt")
    others = [Document(f"d{i}#0", " ".join([f"w{i}"] * 20), f"d{i}.txt") for i in range(12)]
    return answer, [answer, *others]


QA = pd.DataFrame([{"qa_id": "q1", "doc_id": "ans#0", "question": "What is the code?", "answer": "4711"}])


@pytest.mark.parametrize("pct, n_max, expected", [(0, 8, 0), (25, 8, 2), (50, 5, 3), (100, 5, 5), (25, 1, 0)])
def test_noise_levels_round_half_up(pct, n_max, expected):
    assert n_at_level(pct, n_max) == expected


def test_noise_level_outside_0_100_is_refused():
    with pytest.raises(ValueError, match="0..100"):
        n_at_level(120, 5)


def test_each_level_adds_to_the_previous_set_and_stays_in_budget():
    answer, docs = pool()
    sets = build_sets(QA, docs, 150, [0, 25, 50, 75, 100], seed=0, count=words, count_text=words)
    assert [s.noise_pct for s in sets] == [0, 25, 50, 75, 100]
    assert [d.id for d in sets[0].docs] == ["ans#0"]
    members = [set(d.id for d in s.docs) for s in sets]
    assert all(a < b or a == b for a, b in zip(members, members[1:]))  # nested
    assert all("ans#0" in m for m in members)
    assert sets[-1].n_distractors >= 3
    from lclab.text.context import answer_prompt

    assert all(words(answer_prompt(s.docs, s.question)) <= 150 for s in sets)


def test_sets_are_seeded():
    _, docs = pool()
    a = build_sets(QA, docs, 150, [50, 100], seed=1, count=words, count_text=words)
    b = build_sets(QA, docs, 150, [50, 100], seed=1, count=words, count_text=words)
    c = build_sets(QA, docs, 150, [50, 100], seed=2, count=words, count_text=words)
    assert [[d.id for d in s.docs] for s in a] == [[d.id for d in s.docs] for s in b]
    assert [[d.id for d in s.docs] for s in a] != [[d.id for d in s.docs] for s in c]


def test_an_unanswerable_set_is_the_pairs_set_without_its_answer_passage_at_every_level_above_0():
    _, docs = pool()
    sets = build_sets(QA, docs, 150, [0, 50, 100], seed=0, count=words, count_text=words, unanswerable_share=0.5)
    absent = [s for s in sets if not s.answerable]
    assert [s.noise_pct for s in absent] == [50, 100] and {s.qa_id for s in absent} == {"q1/absent"}
    assert all("ans#0" not in {d.id for d in s.docs} and not any("4711" in d.text for d in s.docs) for s in absent)
    answered = {s.noise_pct: {d.id for d in s.docs} - {"ans#0"} for s in sets if s.answerable}
    assert all({d.id for d in s.docs} == answered[s.noise_pct] for s in absent)  # the same distractors
    assert all(s.n_distractors == len(s.docs) for s in absent)
    assert len(build_sets(QA, docs, 150, [0, 100], 0, words, words)) == 2  # no share: the seed's sets only


@pytest.mark.parametrize("share, answerable, expected", [(0, 10, 0), (0.2, 10, 3), (0.5, 2, 2), (0.34, 2, 1),
                                                         (0.1, 2, 1)])
def test_the_unanswerable_share_counts_units_beside_the_answerable_ones(share, answerable, expected):
    from lclab.stats.abstention import unanswerable_count

    assert unanswerable_count(share, answerable) == expected
    with pytest.raises(ValueError, match="within 0 to 0.9"):
        unanswerable_count(1.0, 4)


def test_every_arm_is_a_sample_and_the_extra_arms_read_the_fullest_answerable_sets_only():
    from lclab.context_vs_rag.run import as_samples
    from lclab.text.context import IF_ABSENT

    _, docs = pool()
    sets = build_sets(QA, docs, 150, [0, 100], 0, words, words, unanswerable_share=0.5)
    samples = as_samples(sets, top_k=3, frontier_k=[1, 3, 5], self_route=True, if_absent=IF_ABSENT)
    got = {(s["cluster"], s["noise_pct"], s["method"], s["k"]) for s in samples}
    assert got == {("q1", 0, "long_context", None), ("q1", 0, "rag", 3), ("q1", 100, "long_context", None),
                   ("q1", 100, "rag", 3), ("q1", 100, "rag@1", 1), ("q1", 100, "rag@5", 5),
                   ("q1", 100, "self_route", 3), ("q1/absent", 100, "long_context", None),
                   ("q1/absent", 100, "rag", 3)}
    # a run with unanswerable sets says what to reply in every long-context prompt, answerable ones too
    assert all(IF_ABSENT in s.input for s in samples if s["method"] == "long_context")
    assert not any(IF_ABSENT in s.input for s in as_samples(sets[:2]) if s["method"] == "long_context")


def test_frontier_and_self_route_tables_by_hand():
    from lclab.context_vs_rag.frontier import frontier_table, self_route_table

    rows = []
    for q, (lc, rag, route, routed) in enumerate([(1, 0, 1, True), (1, 1, 1, False), (0, 0, 0, True),
                                                   (1, 1, 1, False)]):
        rows += [{"qa_id": f"q{q}", "noise_pct": 100, "method": "long_context", "k": None, "prompt_tokens": 1000,
                  "judge_correct": lc},
                 {"qa_id": f"q{q}", "noise_pct": 100, "method": "rag", "k": 3, "prompt_tokens": 300,
                  "judge_correct": rag},
                 {"qa_id": f"q{q}", "noise_pct": 100, "method": "self_route", "k": 3, "routed": routed,
                  "prompt_tokens": 300 + (1000 if routed else 0), "judge_correct": route}]
    items = pd.DataFrame(rows)
    frontier = frontier_table(items)
    assert list(frontier["method"]) == ["rag", "self_route", "long_context"]  # by tokens read
    assert frontier.set_index("method").loc["self_route", "tokens_read"] == 800
    assert frontier.set_index("method").loc["rag", "accuracy"] == 0.5
    table, line = self_route_table(items)
    row = table.iloc[0]
    assert row["routed"] == 0.5 and row["difference"] == 0 and row["qa_pairs"] == 4
    # saving per pair: 1 - 1300/1000 twice, 1 - 300/1000 twice -> mean 0.2
    assert row["token_saving"] == pytest.approx(0.2) and "Self-Route at 100 % noise" in line


def test_with_unanswerable_sets_the_budget_is_filled_counting_what_every_prompt_then_says():
    from lclab.text.context import IF_ABSENT, answer_prompt

    _, docs = pool()
    sets = build_sets(QA, docs, 150, [0, 100], 0, words, words, unanswerable_share=0.5)
    assert all(words(answer_prompt(s.docs, s.question, IF_ABSENT)) <= 150 for s in sets)


def test_the_arms_tables_of_a_run_whose_calls_all_failed_are_empty_not_errors():
    from lclab.context_vs_rag.frontier import arm_tables

    failed = pd.DataFrame([{"qa_id": q, "noise_pct": 100, "method": m, "k": None, "answerable": not q.endswith("t"),
                            "error": "HTTP 400"} for q in ("q1", "q1/absent") for m in ("long_context", "rag")]
                          + [{"qa_id": "q1", "noise_pct": 100, "method": "self_route", "k": 3, "answerable": True,
                              "error": "HTTP 400"}])
    tables, notes = arm_tables(failed, True, True, True)
    assert tables["frontier"].empty and tables["self_route"].empty and "nothing to compare" in notes[0]
    assert tables["abstention"]["abstained"].isna().all() and tables["abstention"]["accuracy"].isna().all()
