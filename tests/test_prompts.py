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


def test_qa_generation_prompt_is_the_seeds_with_the_short_answer_the_qa_issue_asks():
    # The seed's prompt, and one sentence #70 adds: a small model answered in sentences that the short-answer check
    # then removed (8 of 12 pairs on three license texts).
    assert render("qa_generation", context="Paris is in France.") == (
        "Ask a factoid question given only the context provided, that can be answered in a few words. "
        "Answer the question given the context.\n"
        "The answer is a short phrase copied from the context (a name, a number, a few words), not a sentence.\n"
        "Format your result in a JSON object with keys 'question' and 'answer'.\n"
        "Context: Paris is in France.\n"
        "Result:"
    )


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
        render("qa_generation", context="c", extra="x")
    with pytest.raises(KeyError, match="no prompt template"):
        render("no_such_prompt")
