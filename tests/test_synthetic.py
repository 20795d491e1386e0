"""Synthetic long-context tasks: exact budgets in the model's tokens, seeded samples, hand-checked scores."""

import math

import pytest
from conftest import SMALL_MODEL, synthetic_samples
from lclab.models import count_prompt_tokens
from lclab.synthetic import build_samples, score
from lclab.synthetic.haystack import fit, place

ALL = ["needle_single", "needle_multikey", "needle_multivalue", "needle_multiquery", "variables", "common_words",
       "frequent_words", "qa"]


def samples(**changes):
    p = dict(model=SMALL_MODEL, tasks=ALL, context_tokens=[500, 900], depths=[0, 100], n_samples=2, seed=0,
             corpus="paul_graham", value_kinds=["numbers", "uuids", "words"], qa_path="data/pg_qa/qa.csv") | changes
    return synthetic_samples(**p)


def test_every_prompt_fills_its_budget_in_the_models_own_tokens_and_holds_its_targets():
    built = samples()
    assert {s["task"] for s in built} == set(ALL)
    for s in built:
        tokens = count_prompt_tokens(SMALL_MODEL, s.input)
        assert tokens == s["prompt_tokens_counted"] and 0.85 * s["context_tokens"] <= tokens <= s["context_tokens"]
        # frequent words are counted from the text itself; a QA pair's answer is the reviewer's wording
        if s["task"] not in ("frequent_words", "qa"):
            assert all(t in s.input for t in s.target), (s.id, s.target)
    # tasks without a needle are built once per length, the others once per depth too
    assert sum(s["task"] == "common_words" for s in built) == 2 * 2
    assert sum(s["task"] == "needle_single" for s in built) == 2 * 2 * 2


def test_samples_are_seeded_and_one_haystack_keeps_its_needles_across_lengths_and_depths():
    first, again = samples(tasks=["needle_multivalue"]), samples(tasks=["needle_multivalue"])
    assert [s.input for s in first] == [s.input for s in again]
    by_cluster = {}
    for s in first:
        by_cluster.setdefault(s["cluster"], set()).add(tuple(s.target))
    assert all(len(targets) == 1 for targets in by_cluster.values())  # same values at every length and depth
    assert len(samples(tasks=["needle_multivalue"], seed=1)[0].target) == 4
    assert samples(tasks=["needle_multivalue"], seed=1)[0].target != first[0].target


def test_the_needle_sits_at_its_depth():
    units = [f"s{i}." for i in range(10)]
    assert place(units, [(0, "N")])[0] == "N" and place(units, [(100, "N")])[-1] == "N"
    assert place(units, [(50, "N")]).index("N") == 5
    shallow = samples(tasks=["needle_single"], context_tokens=[600], depths=[0, 100], n_samples=1)
    deep, top = shallow  # built deepest first (the order that lets prompts share their prefix)
    key_sentence = "One of the special"
    assert top.input.index(key_sentence) < len(top.input) * 0.3 < len(deep.input) * 0.7 < deep.input.index(
        key_sentence)


def test_scores_by_hand():
    two = score("The numbers are 123 and 456.", ["123", "456", "789"], "all")
    assert two.value == pytest.approx(2 / 3) and two.metadata["found"] == ["123", "456"]
    assert score("ABCDE, fghij", ["abcde", "FGHIJ"], "all").value == 1.0  # case does not matter
    assert score("nothing", ["123"], "all").value == 0.0
    assert score("It was the Yahoo deal.", ["Yahoo deal", "Microsoft"], "part").value == 1.0  # any answer
    none = score(None, ["x"], "all")  # no reply: unscored with its reason, never 0
    assert none.value is None and not none.scored and none.unscored == "no response"


def test_a_budget_that_cannot_hold_the_question_is_refused():
    with pytest.raises(ValueError, match="cannot hold the task's question"):
        fit(["a."] * 5, [(50, "needle")], lambda c: "question " * 50 + c, lambda t: len(t.split()), 10)
    with pytest.raises(ValueError, match="unknown task"):
        samples(tasks=["needle_single", "nope"])


@pytest.mark.parametrize("per_unit", [1, 3, 17])
def test_the_guided_search_finds_the_largest_fitting_prefix_in_few_counts(per_unit):
    # A planted tokenizer: uneven units (1 to 40 characters) and a count that is not proportional to characters,
    # so guesses from characters per token are off and the search must still land on the largest fitting k.
    import random

    from lclab.synthetic.haystack import fit_by

    rng = random.Random(per_unit)
    units = ["x" * rng.randint(1, 40) for _ in range(2000)]
    cost = lambda text: 5 + text.count("x") // 4 + per_unit * text.count("|")  # noqa: E731
    calls = []

    def count(text):
        calls.append(text)
        return cost(text)

    for budget in (50, 333, 1000, 4000):
        calls.clear()
        prompt, tokens = fit_by(lambda k: "|".join(units[:k]), len(units), count, budget, whole=False)
        best = max(k for k in range(len(units) + 1) if cost("|".join(units[:k])) <= budget)
        assert prompt == "|".join(units[:best]) and tokens == cost(prompt) <= budget
        assert len(calls) <= 12  # plain bisection over 2,000 units takes 11 plus the empty prompt


def test_beyond_window_takes_refuse_or_skip_only():
    from lclab.models import within_window

    with pytest.raises(ValueError, match="beyond_window='drop': use 'refuse' or 'skip'"):
        within_window(SMALL_MODEL, [500], 16, "drop")
    assert within_window(SMALL_MODEL, [500, 1000], 16, "refuse") == ([500, 1000], None)  # 8,192-token window


def test_association_needles_share_no_content_word_with_their_question_and_the_literal_control_does():
    from lclab.scoring.baselines import content_overlap, content_words
    from lclab.synthetic.associations import needle_set

    pairs, names = needle_set()
    assert len(pairs) >= 12 and len(set(pairs["pair_id"])) == len(pairs)
    for r in pairs.itertuples():
        for name in names[:3]:
            assert content_overlap(r.question, r.needle.format(name=name)) == 0, r.pair_id
            shared = content_words(r.question) & content_words(r.literal.format(name=name))
            assert r.keyword.lower().split()[0] in shared, r.pair_id


def test_both_association_tasks_read_the_same_name_in_the_same_haystack_and_record_the_overlap():
    built = samples(tasks=["association", "association_literal"], context_tokens=[600], depths=[50], n_samples=3)
    by = {(s["task"], s["cluster"].rsplit("-", 1)[1]): s for s in built}
    for i in "012":
        hidden, literal = by["association", i], by["association_literal", i]
        assert hidden.target == literal.target and hidden.target[0] in hidden.input
        assert hidden["needle"] in hidden.input and literal["needle"] in literal.input
        assert hidden["question_overlap"] == 0 < literal["question_overlap"]
        # nothing else in the haystack names a character of the set or the question's keyword
        from lclab.synthetic.associations import needle_set

        pairs, names = needle_set()
        text = hidden.input.replace(hidden["needle"], "")
        assert not any(n in text for n in names)
    assert len({s.target[0] for s in built}) > 1  # names are drawn, not fixed


def test_an_unanswerable_haystack_leaves_out_the_asked_needles_and_every_prompt_of_the_run_says_what_to_reply():
    from lclab.synthetic.run import IF_ABSENT

    built = samples(tasks=["needle_multikey", "qa", "association", "variables"], context_tokens=[600],
                    depths=[50], n_samples=2, unanswerable_share=0.34)
    absent = [s for s in built if not s["answerable"]]
    assert {s["task"] for s in absent} == {"needle_multikey", "qa", "association"}  # variables cannot be
    assert all(s.target == [] and s["metric"] == "abstain" and s["cluster"].endswith("-2") for s in absent)
    multikey = next(s for s in absent if s["task"] == "needle_multikey")
    asked_for = next(s for s in built if s["task"] == "needle_multikey" and s["cluster"].endswith("-0"))
    assert multikey.input.count("One of the special") == 3  # the asked needle gone, its three distractors kept
    assert all(IF_ABSENT in s.input for s in built if s["task"] != "variables")
    assert not any(IF_ABSENT in s.input for s in samples(tasks=["needle_multikey"], n_samples=1))
    assert asked_for.target[0] in asked_for.input
    assert score("It is not in the text.", [], "abstain").value == 1.0
    assert score("4711", [], "abstain").value == 0.0


def test_ruler_and_nolima_effective_lengths_by_hand():
    from lclab.stats.effective_length import RULER_THRESHOLD, effective_length

    weak = {1000: 0.6, 2000: 0.55, 4000: 0.3}  # relative: 85 % of 0.6 = 0.51 -> 2000; RULER's bar never met
    assert effective_length(weak) == 2000
    assert math.isnan(effective_length(weak, absolute=RULER_THRESHOLD))
    strong = {1000: 1.0, 2000: 0.9, 4000: 0.86}  # relative bar 0.85 -> 4000; RULER's 0.856 -> 4000
    assert effective_length(strong) == 4000 and effective_length(strong, absolute=RULER_THRESHOLD) == 4000
    assert effective_length({1000: 1.0, 2000: 0.85, 4000: 0.9}, absolute=RULER_THRESHOLD) == 1000
