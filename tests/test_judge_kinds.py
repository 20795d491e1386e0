"""A judge kind is one value (lclab.scoring.judge_kinds): 06 judges every answer with each kind that names it, its
plan prices that kind's stage, its card reads the kind's labelled texts, and the labelling sheet and the desk know
it. So a second relevance judge for 06 is three things: its entry, its template and its labelled texts (#90)."""

import shutil
from dataclasses import replace

import pandas as pd
import pytest
from lclab import prompts
from lclab.experiments import get
from lclab.runs.declared import declared
from lclab.runs.notebooks import NOTEBOOKS, notebook_defaults
from lclab.scoring import judge_kinds, labels, shipped_texts

from test_fake_model import fake_parameters
from test_notebooks import assert_plan_counted_the_run, planned_calls

TOY_TEMPLATE = ("Is the answer about what the question asks, whatever it says? Return a JSON object with a boolean "
                "key `on_topic`.\nQuestion: {question}\nAnswer: {answer}\nJSON:")


@pytest.fixture
def on_topic(tmp_path, monkeypatch):
    """A toy judge kind, added as a user would add one, in the three places a kind needs."""
    template = tmp_path / "prompts" / "judge_on_topic.txt"  # 1. its template
    template.parent.mkdir()
    template.write_text(TOY_TEMPLATE, encoding="utf-8")
    index = dict(prompts._index()) | {"judge_on_topic": template}
    monkeypatch.setattr(prompts, "_index", lambda: index)
    folder = tmp_path / "judge_labels"  # 2. its labelled texts (the relevance texts, filed under the new kind)
    shutil.copytree(shipped_texts.SHIPPED, folder)
    shutil.copy(folder / "rag_relevance.csv", folder / "on_topic.csv")
    monkeypatch.setattr(shipped_texts, "SHIPPED", folder)
    monkeypatch.setattr(labels, "LABELS", folder)
    toy = replace(judge_kinds.RELEVANCE, kind="on_topic", template="judge_on_topic", key="on_topic",  # 3. its entry
                  column="on_topic", stage="judge_on_topic", metric="on topic", rate="answer on topic",
                  buttons=("on topic", "off topic"))
    monkeypatch.setitem(judge_kinds.JUDGE_KINDS, toy.kind, toy)
    return toy


@pytest.mark.slow  # 06 on the fake model, as test_fake_model.py runs it
def test_a_second_relevance_judge_for_06_is_its_entry_its_template_and_its_labelled_texts(on_topic, tmp_path,
                                                                                        monkeypatch,
                                                                                        shared_embeddings):
    from lclab.explore.desk import meanings
    from lclab.models.fake import ARRAY_LENGTH
    from lclab.planning import priors
    from lclab.qa.generate import MAX_ASKS
    from lclab.scoring.labelling import sheet

    # the fake's fan-outs, as test_fake_model.py gives them, so the plan is exact
    monkeypatch.setattr(priors, "COUNTS", dict.fromkeys(priors.COUNTS, ARRAY_LENGTH) | {
        "asked again per pair": MAX_ASKS - 1, "round trips per passage": 0, "closed-book probes per passage": 0})

    experiment = get("rag_validation")
    nb = NOTEBOOKS / f"{experiment.notebook_stem}.ipynb"
    params = fake_parameters(nb)
    planned = planned_calls(nb, params)
    assert planned[("judge_on_topic", "fake/judge")] == planned[("judge_relevance", "fake/judge")] > 0
    result = experiment.run(declared(experiment.parameters, notebook_defaults(nb) | params))
    assert_plan_counted_the_run(planned, tmp_path, exact=True)  # the plan priced the stage the run sent
    judged = result.items[result.items["error"].isna()]
    assert len(judged) and judged["on_topic"].map(type).eq(bool).all() and judged["on_topic_p"].notna().all()
    card = result.tables["judge_card"]
    assert len(card[card["kind"] == "on_topic"]) == 1  # its card, on the texts filed under it
    assert "on topic (06)" in set(result.tables["reliability"]["metric"])
    assert "answer on topic" in set(result.tables["answer_quality"]["measure"])
    texts = sheet("on_topic", result.dir, include_labelled=True)
    assert len(texts) and list(texts.columns[:3]) == ["key", "question", "response"]
    assert not any(c.startswith("on_topic") for c in texts.columns)  # blind to the new verdict as to the others
    assert meanings("on_topic") == ("on topic", "off topic")


def test_a_kind_renders_its_template_from_an_items_fields_and_writes_its_columns():
    item = {"question": "Which gate opens at dawn?", "response": "The east gate.", "reference": "The east gate",
            "passages": "[1] The east gate opens at dawn."}
    for kind in judge_kinds.JUDGE_KINDS.values():
        assert kind.prompt(item) == prompts.render(kind.template, **{slot: item[f] for slot, f in kind.asks})
        assert set(f for _, f in kind.asks) <= set(kind.fields) and kind.baseline_score(item) is not None
    assert judge_kinds.CORRECTNESS.prompt(item) == prompts.render(
        "judge_correct", question=item["question"], answer=item["response"], gold_answer=item["reference"])
    from lclab.scoring.score import Score

    assert list(judge_kinds.CORRECTNESS.columns(Score(True, metadata={"p": 0.9}))) == [
        "judge_correct", "judge_correct_p", "judge_error"]
    assert list(judge_kinds.RELEVANCE.columns(Score(None, unscored="no JSON"))) == ["relevant", "relevant_error"]
    assert [k.kind for k in judge_kinds.judged_in("rag_validation")] == [
        "answer_correct", "rag_relevance", "rag_faithfulness"]
    assert pd.Series([k.stage for k in judge_kinds.JUDGE_KINDS.values()]).is_unique
