"""lclab.pipeline.Stage: a stage declares where its prompts come from, once; the generic planner refuses a stage
that reads one no earlier stage answers; a declared run and its generic plan use the same Request object."""

from dataclasses import dataclass

import pytest
from lclab.models import Request
from lclab.models.judge_choice import judge_spec
from lclab.pipeline import Stage
from lclab.planning.experiment_plan import planned_stages
from lclab.runs.samples import Sample
from lclab.scoring.judge_kinds import correctness_judge
from lclab.scoring.judges import judge_requests


@dataclass
class P:
    model: str = "fake/answerer"
    judge_model: str = ""
    self_consistency: int = 2
    max_workers: int = 3


def test_a_stage_declares_a_prompt_or_what_it_reads_not_both_and_not_neither():
    request = lambda p: Request(max_tokens=4)  # noqa: E731
    with pytest.raises(ValueError, match="either `prompt`"):
        Stage("answer", request=request)
    with pytest.raises(ValueError, match="either `prompt`"):
        Stage("answer", request=request, prompt=lambda s: s.input, reads="x")
    with pytest.raises(ValueError, match="one slot"):
        Stage("judge", request=request, reads="answer", template="judge_correct")
    with pytest.raises(ValueError, match="role"):
        Stage("answer", request=request, prompt=lambda s: s.input, role="embedder")


def test_roles_requests_and_workers_come_from_the_parameters():
    judge = correctness_judge()
    p = P()
    assert judge.model(p) == judge_spec(p.model, p.judge_model) and judge.reads == "answer"
    assert judge.requests(p) == judge_requests(2) and judge.concurrency(p) == 3
    assert Stage("a", request=lambda p: Request(max_tokens=1), prompt=lambda s: s.input).model(p) == p.model
    with pytest.raises(TypeError, match="judge function"):
        judge.ask(p, Sample(id="1", input="q", target="a"))


def test_the_generic_planner_refuses_a_stage_reading_one_that_no_earlier_stage_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="reads 'answer'"):
        planned_stages("nb", "exp", P(), [], (correctness_judge(),))
