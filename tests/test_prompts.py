"""Every prompt template, pinned as a golden string: a changed prompt changes what every run measures
(and every cache key), so it must change here too, on purpose."""

from pathlib import Path

import pytest
from lclab import prompts
from lclab.prompts import render

# tests/golden_prompts/<name>.txt: the exact prompt of each template with every field filled by its
# upper-case name (a field `question` becomes QUESTION), written once from the render, read, then kept.
GOLDEN = Path(__file__).with_name("golden_prompts")


def test_every_template_has_a_golden_string_and_every_golden_string_a_template():
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == prompts.names()


@pytest.mark.parametrize("name", prompts.names())
def test_the_template_renders_its_golden_string(name):
    values = {field: field.upper() for field in prompts.fields(name)}
    assert render(name, **values) == (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def test_qa_generation_asks_the_seeds_factoid_pairs_with_what_a_reader_needs():
    # The seed's factoid question "answered in a few words" and its JSON pairs, asked three at a time (#89) and told
    # the document's title and the heading above the passage, so that a question can name what it asks about.
    prompt = render("qa_generation_candidates", n=3, title="Zorblat manual", heading="Ports", context="Port 7311.",
                    also="")
    assert prompt.startswith("Write exactly 3 different factoid questions about the passage below")
    assert "answered in a few words by the passage alone" in prompt and "keys 'question' and 'answer'" in prompt
    assert prompt.endswith("Document: Zorblat manual\nSection: Ports\nPassage: Port 7311.\nResult:")


def test_judge_prompt_is_the_seeds():
    assert render("judge_correct", question="Q?", answer="A", gold_answer="G") == (
        "For the question provided, return a JSON object with a `correct` key as a boolean, if the given "
        "answer and gold standard answer are the same in meaning (may be worded differently).\n"
        "Question: Q?\nAnswer: A\nGold standard answer: G\nJSON:"
    )


def test_answer_prompt_numbers_documents_from_zero():
    from lclab.text.context import answer_prompt
    from lclab.text.corpus import Document

    docs = [Document("a", "Alpha text."), Document("b", "Beta {braces} text.")]
    assert answer_prompt(docs, "Which?") == (
        "Answer the question using only the documents below. Reply with the answer alone, in a few words.\n\n"
        "Document [0]\nAlpha text.\n\nDocument [1]\nBeta {braces} text.\n\n"
        "Question: Which?\nAnswer:"
    )


def test_render_rejects_missing_or_extra_fields():
    with pytest.raises(TypeError, match="takes"):
        render("judge_correct", question="Q", answer="A")
    with pytest.raises(TypeError):
        render("qa_round_trip", context="c", question="q", extra="x")
    with pytest.raises(KeyError, match="no prompt template"):
        render("no_such_prompt")
