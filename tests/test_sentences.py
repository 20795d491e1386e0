"""Sentence conversion (seed 003): each rule on its own, then the whole conversion."""

from lclab.text.sentences import MAX_CHARS, last_sentence, merge_short, split_long, to_sentences


def test_punkt_splits_sentences_without_breaking_on_abbreviations_and_runs_offline():
    text = "Dr. Smith arrived at 9 a.m. on Monday morning. The meeting with Mr. Jones lasted two hours."
    assert to_sentences(text) == ["Dr. Smith arrived at 9 a.m. on Monday morning.",
                                  "The meeting with Mr. Jones lasted two hours."]


def test_a_sentence_up_to_the_limit_is_kept_whole():
    s = "x" * MAX_CHARS
    assert split_long(s) == [s]


def test_a_long_sentence_is_split_on_blank_lines_first():
    a, b = "a" * 300, "b" * 300
    assert split_long(f"{a}\n\n{b}") == [a, b]


def test_only_a_block_still_too_long_is_split_on_newlines():
    short, a, b = "s" * 100, "a" * 300, "b" * 300
    assert split_long(f"{short}\n\n{a}\n{b}") == [short, a, b]
    # A block that fits after the blank-line split keeps its single newlines.
    assert split_long(f"{'c' * 200}\n{'d' * 200}\n\n{'e' * 300}") == [f"{'c' * 200}\n{'d' * 200}", "e" * 300]


def test_what_is_still_too_long_is_cut_into_500_character_pieces():
    pieces = split_long("z" * 1234)
    assert [len(p) for p in pieces] == [500, 500, 234]


def test_a_short_sentence_joins_the_following_one():
    assert merge_short(["Yes.", "The library opens at nine on weekdays."]) == [
        "Yes. The library opens at nine on weekdays."]


def test_a_short_last_sentence_joins_the_previous_one():
    assert merge_short(["The library opens at nine on weekdays.", "Not Sundays."]) == [
        "The library opens at nine on weekdays. Not Sundays."]


def test_short_sentences_in_a_row_gather_until_long_enough():
    assert merge_short(["A.", "B.", "C.", "A sentence long enough."]) == ["A. B. C. A sentence long enough."]
    assert merge_short(["One.", "Two.", "Three, a longer one."]) == ["One. Two. Three, a longer one."]


def test_a_text_that_is_one_short_sentence_stays_as_it_is():
    assert to_sentences("I don't know.") == ["I don't know."]


def test_sentences_at_the_limit_of_20_characters_are_not_merged():
    exactly = "x" * 19 + "."  # 20 characters
    assert merge_short([exactly, exactly]) == [exactly, exactly]
    assert merge_short(["y" * 18 + ".", exactly]) == ["y" * 18 + ". " + exactly]


def test_empty_and_blank_texts_have_no_sentences():
    assert to_sentences("") == [] and to_sentences("  \n ") == []


def test_last_sentence_is_the_request_itself():
    assert last_sentence("I read the whole loan policy twice. When does the library open on Saturdays?") == \
        "When does the library open on Saturdays?"
    assert last_sentence("") == ""
