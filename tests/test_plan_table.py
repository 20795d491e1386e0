"""The printed plan: a stage whose time or cost cannot be known shows "?" and the total says it is partial."""

import math

from lclab.planning.plan import cost_for, plan_table, shown_plan


def test_unknown_seconds_and_cost_show_a_question_mark_and_a_partial_total():
    rows = [{"notebook": "01", "stage": "answer", "model": "openai/qwen@http://127.0.0.1:8080/v1", "calls": 5,
             "cached": 0, "prompt_tokens": 7480, "completion_tokens": 240, "seconds": math.nan, "cost_usd": math.nan},
            {"notebook": "01", "stage": "judge", "model": "local/qwen2.5-coder-1.5b", "calls": 5, "cached": 0,
             "prompt_tokens": 940, "completion_tokens": 40, "seconds": 19.0, "cost_usd": 0.0}]
    shown = shown_plan(plan_table(rows))
    assert list(shown["seconds"]) == ["?", "19", "19 + ?"] and list(shown["cost_usd"]) == ["?", "0.00", "0.00 + ?"]
    assert "nan" not in shown.to_string().lower()


def test_a_served_model_is_priced_by_its_served_name(tmp_path, monkeypatch):
    from lclab.planning import plan

    (tmp_path / "prices.yaml").write_text("openai/qwen: {input: 0, output: 0}\n")
    monkeypatch.setattr(plan, "PARAMS", tmp_path)
    assert cost_for("openai/qwen@http://127.0.0.1:8080/v1", 1000, 100) == 0.0
    assert math.isnan(cost_for("openai/other@http://127.0.0.1:8080/v1", 1000, 100))
