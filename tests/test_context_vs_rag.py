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
