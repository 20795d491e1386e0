import pytest
from lclab.models.jsonparse import JSONParseError, parse_json_object


@pytest.mark.parametrize("text, expected", [
    ('{"correct": true}', {"correct": True}),
    ('```json\n{"correct": false}\n```', {"correct": False}),
    ('Sure! Here it is: {"question": "Who?", "answer": "Bob {the} builder"} Hope that helps.',
     {"question": "Who?", "answer": "Bob {the} builder"}),
    ('{"correct": True}', {"correct": True}),  # Python literal from a small model
    ('{"a": "brace } in string", "b": 1}', {"a": "brace } in string", "b": 1}),
])
def test_parses_json_in_common_wrappings(text, expected):
    assert parse_json_object(text) == expected


@pytest.mark.parametrize("text", ["yes", "", "[1, 2]", '{"unterminated": "x"', "correct: true"])
def test_rejects_what_is_not_a_json_object(text):
    with pytest.raises(JSONParseError, match="no JSON object"):
        parse_json_object(text)
