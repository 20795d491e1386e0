import random

import pytest
from lclab.text.context import answer_prompt, candidate_distractors, depth_position, fill_budget, place_at_depth
from lclab.text.corpus import Document


def words(text: str) -> int:
    return len(text.split())


def doc(i, n_words=10, source=None):
    return Document(f"d{i}", " ".join([f"w{i}"] * n_words), source or f"file{i}.txt")


@pytest.mark.parametrize("depth, n, expected", [(0, 5, 0), (100, 5, 4), (50, 5, 2), (25, 5, 1), (75, 5, 3),
                                                (50, 1, 0), (25, 4, 1), (75, 4, 2), (50, 2, 1), (50, 4, 2)])
def test_depth_position(depth, n, expected):
    assert depth_position(depth, n) == expected


def test_depth_outside_range_is_an_error():
    with pytest.raises(ValueError):
        depth_position(120, 5)


def test_place_at_depth_keeps_distractor_order():
    answer, ds = doc(0), [doc(i) for i in range(1, 5)]
    assert [d.id for d in place_at_depth(answer, ds, 0)] == ["d0", "d1", "d2", "d3", "d4"]
    assert [d.id for d in place_at_depth(answer, ds, 50)] == ["d1", "d2", "d0", "d3", "d4"]
    assert [d.id for d in place_at_depth(answer, ds, 100)] == ["d1", "d2", "d3", "d4", "d0"]


def test_fill_budget_stays_within_budget_at_every_depth():
    answer, pool = doc(0), [doc(i, n_words=5 * i) for i in range(1, 9)]
    for budget in (60, 100, 200):
        chosen = fill_budget(answer, pool, "What?", budget, words)
        for depth in (0, 25, 50, 75, 100):
            assert words(answer_prompt(place_at_depth(answer, chosen, depth), "What?")) <= budget
        # Nothing left out would still have fit.
        used = words(answer_prompt([answer, *chosen], "What?"))
        rest = [d for d in pool if d not in chosen]
        assert all(used + words(d.text) + 2 > budget for d in rest)


def test_fill_budget_charges_the_chat_template_once():
    # A whole-prompt counter that adds a 30-token chat template to anything it counts.
    templated = lambda text: words(text) + 30  # noqa: E731
    answer, pool = doc(0), [doc(i, n_words=10) for i in range(1, 20)]
    budget = 200
    fair = fill_budget(answer, pool, "What?", budget, templated, count_text=words)
    overpriced = fill_budget(answer, pool, "What?", budget, templated)
    full = templated(answer_prompt([answer, *fair], "What?"))
    assert full <= budget and full + 12 > budget  # filled to within one document
    assert len(fair) > len(overpriced)


def test_budget_smaller_than_answer_document_is_a_clear_error():
    with pytest.raises(ValueError, match="smaller than the answer document 'd0'"):
        fill_budget(doc(0, n_words=50), [doc(1)], "What?", 30, words)


def test_distractors_exclude_the_answer_file_and_any_passage_with_the_answer():
    answer = Document("a#0", "The capital is Paris.", "a.txt")
    pool = [answer, Document("a#1", "More of a.", "a.txt"), Document("b#0", "Paris again.", "b.txt"),
            Document("c#0", "Nothing here.", "c.txt"), Document("d#0", "Also nothing.", "d.txt")]
    got = candidate_distractors(answer, pool, "Paris", random.Random(0))
    assert sorted(d.id for d in got) == ["c#0", "d#0"]
    again = candidate_distractors(answer, pool, "Paris", random.Random(0))
    assert [d.id for d in got] == [d.id for d in again]  # seeded


def test_fill_budget_counts_each_passage_once_and_chooses_what_counting_every_block_would():
    rng = random.Random(3)
    answer, pool = doc(0), [doc(i, n_words=rng.randint(3, 60)) for i in range(1, 400)]
    block = lambda k, d: "\n\n" + f"Document [{k}]\n{d.text}"  # noqa: E731  (the "document" template)

    def exact(budget):  # every candidate's document block counted, as fill_budget did before it skipped any
        chosen, used = [], words(answer_prompt([answer], "What?"))
        for d in pool:
            cost = words(block(len(chosen) + 1, d))
            if used + cost <= budget:
                chosen.append(d)
                used += cost
        return chosen

    counted = []

    def counting(text):
        counted.append(text)
        return words(text)

    for budget in (80, 300, 900):
        assert fill_budget(answer, pool, "What?", budget, counting) == exact(budget)
    bare = [t for t in counted if not t.startswith("\n\nDocument")]
    assert len(bare) <= len(pool) + 3 * 3  # each passage's own count once over all budgets (+ whole prompts)
    assert len(counted) - len(bare) < len(pool)  # most blocks were never counted
