"""lclab.pipeline.Stage: a stage declares where its prompts come from, once; the generic planner refuses a stage
that reads one no earlier stage answers; a declared run and its generic plan use the same Request object; the
runner executes the declared stages themselves (Run.stages), each writing its columns into the row."""

from dataclasses import dataclass

import pytest
from lclab.models import Request
from lclab.models.judge_choice import judge_spec
from lclab.pipeline import Given, Stage
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
    with pytest.raises(ValueError, match="`write`"):
        Stage("judge", request=request, reads="answer", template="judge_correct", known=dict, slots=("answer",))
    with pytest.raises(ValueError, match="`request`"):
        Stage("answer", prompt=lambda s: s.input)
    with pytest.raises(ValueError, match="`write`"):
        Stage("retrieve", role="retrieval")
    assert not Stage("retrieve", role="retrieval", write=lambda g, s, row: {}).calls_model


def test_roles_requests_and_workers_come_from_the_parameters():
    judge = correctness_judge()
    p = P()
    assert judge.model(p) == judge_spec(p.model, p.judge_model) and judge.reads == "answer"
    assert judge.requests(p) == judge_requests(2) and judge.concurrency(p) == 3
    assert Stage("a", request=lambda p: Request(max_tokens=1), prompt=lambda s: s.input).model(p) == p.model
    with pytest.raises(TypeError, match="`write` makes its calls"):
        judge.ask(p, Sample(id="1", input="q", target="a"))


def test_the_generic_planner_refuses_a_stage_reading_one_that_no_earlier_stage_answers(tmp_path, monkeypatch):
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="reads 'answer'"):
        planned_stages("nb", "exp", P(), [], (correctness_judge(),))


def test_the_runner_executes_the_declared_stages_each_writing_into_the_row():
    """A retrieval stage, a first stage writing its answer's columns, and the correctness judge reading that answer
    (skipping a sample with no gold answer): the rows hold what each wrote, and a rerun resumes every row."""
    from lclab.runs.runner import Run

    seen = []

    def found(given, sample, row):
        seen.append((given.built["index"], sample.id))
        return {"retrieved": [sample.id]}

    p = P(model="fake/answerer", judge_model="fake/judge", self_consistency=0)
    stages = [Stage("retrieve", role="retrieval", write=found),
              Stage("answer", request=lambda p: Request(max_tokens=8), prompt=lambda s: s.input),
              correctness_judge()]
    samples = [Sample(id=str(i), input=f"What is {i}?", target=str(i), source=Q(f"What is {i}?"),
                      metadata={"answerable": i != 2}) for i in range(3)]
    with Run("depth_sweep", "stages") as run:
        items = run.stages(samples, stages, Given(p, "fake/judge", {"index": "ix"}), key=lambda s: (s.id,),
                           describe=lambda s: {}, log=run.log(("qa_id",)))
    assert seen == [("ix", "0"), ("ix", "1"), ("ix", "2")]
    assert list(items["retrieved"]) == [["0"], ["1"], ["2"]] and items["response"].notna().all()
    assert items["judge_correct"].notna().tolist() == [True, True, False]  # the unanswerable sample not judged
    assert items["string_match"].notna().tolist() == [True, True, False]
    with Run("depth_sweep", "stages") as run:
        again = run.stages(samples, stages, Given(p, "fake/judge", {"index": "ix"}), key=lambda s: (s.id,),
                           describe=lambda s: {}, log=run.log(("qa_id",)))
        assert run.resumed == 3 and len(seen) == 3 and again["response"].tolist() == items["response"].tolist()


@dataclass
class Q:
    question: str


def test_no_code_outside_the_runner_builds_a_step_the_runner_executes_declared_stages():
    """Every trial loop in lib/ runs declared Stage values (Run.stages, or run_trials over `executed(stages)`):
    no closure stands beside them as a hand-built Step."""
    import ast

    from lclab.paths import REPO

    built = []
    for path in (REPO / "lib" / "lclab").rglob("*.py"):
        if path.parent.name == "runs" and path.name in ("runner.py", "trials.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                steps = [k.value for k in node.keywords if k.arg == "steps"]
                if name == "Step" or any(getattr(getattr(v, "func", None), "id", "") != "executed" for v in steps):
                    built.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert built == []
