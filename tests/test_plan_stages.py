"""Later stages in a plan: prompts that quote what an earlier stage writes are priced by their own template
(counted) with stand-in slots, replies at their declared size until a run of the experiment has measured them."""

import ast
from types import SimpleNamespace
import re
import json

import pandas as pd
import pytest
from lclab import paths
from lclab.models import Request, count_prompt_tokens, count_tokens
from lclab.pipeline import Stage
from lclab.planning.priced import Judged, Read, measured, planned_judges, reply_tokens, template_prompt_tokens
from lclab.prompts import render

MODEL = "local/qwen2.5-coder-0.5b"  # counted by its vocabulary, or approximately before it is fetched; never loaded


def earlier_run(name: str, parameters: dict, stages: dict[str, tuple[int, int, int, int]]) -> None:
    """A finished run folder of depth_sweep with an accounting log: stage -> (calls, hits, prompt, completion)."""
    folder = paths.RESULTS / "depth_sweep" / name
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"experiment": "depth_sweep", "parameters": parameters}))
    rows = [{"invocation": "t", "status": "finished", "stage": s, "calls": c, "cache_hits": h, "prompt_tokens": p,
             "completion_tokens": o if c else 0, "cached_prompt_tokens": 0,
             "cached_completion_tokens": 0 if c else o} for s, (c, h, p, o) in stages.items()]
    pd.DataFrame(rows).to_csv(folder / "accounting_log.csv", index=False)


def test_replies_are_priced_at_the_declared_size_until_a_run_measured_them():
    from lclab.planning.priors import REPLY_TOKENS

    assert reply_tokens("depth_sweep", "answer", MODEL, 64) == (float(REPLY_TOKENS["answer"]), "declared")
    assert reply_tokens("depth_sweep", "answer", MODEL, 4) == (4.0, "declared")  # the budget is the ceiling
    assert reply_tokens("depth_sweep", "a stage nobody declared", MODEL, 64) == (64.0, "budget")
    earlier_run("a", {"model": MODEL, "judge_model": "local/qwen2.5-coder-1.5b"},
                {"answer": (10, 0, 5_000, 120), "judge": (10, 0, 1_500, 80)})
    earlier_run("b", {"model": MODEL}, {"answer": (0, 10, 0, 80)})  # a warm rerun: its replies from the cache
    earlier_run("c", {"model": "openai/other@http://127.0.0.1:1/v1"}, {"answer": (10, 0, 5_000, 640)})
    seen = measured("depth_sweep", "answer", MODEL)
    assert (seen.calls, seen.runs, seen.completion, seen.prompt) == (20, 2, 10.0, 250.0)  # not run c: another model
    assert reply_tokens("depth_sweep", "answer", MODEL, 64) == (10.0, "measured in 2 runs")
    assert reply_tokens("depth_sweep", "answer", MODEL, 4)[0] == 4.0  # never above what the run may write
    assert measured("depth_sweep", "judge", "local/qwen2.5-coder-1.5b").completion == 8.0
    assert measured("context_vs_rag", "answer", MODEL) is None


def test_a_template_with_a_stand_in_slot_counts_as_the_filled_prompt():
    answer = "The crossing opens at dawn, after the ferry from the northern bank has docked."
    known = {"question": "When does the crossing open?", "gold_answer": "At dawn."}
    full = count_prompt_tokens(MODEL, render("judge_correct", answer=answer, **known))
    priced = template_prompt_tokens(MODEL, "judge_correct", {"answer": count_tokens(MODEL, answer)}, **known)
    assert abs(priced - full) <= 2  # a token may merge across the slot's edge
    with pytest.raises(KeyError, match="no field"):
        template_prompt_tokens(MODEL, "judge_correct", {"passages": 10})


def test_a_judge_reading_a_cached_answer_is_built_exactly_and_the_rest_priced():
    import lclab.scoring.judge_kinds  # noqa: F401 (each judge kind declares its verdict's size)
    from lclab.planning.priors import REPLY_TOKENS, expected_reply

    known = {"question": "When does the crossing open?", "gold_answer": "At dawn."}
    exact = render("judge_correct", answer="At dawn.", **known)
    judge = Stage("judge", request=lambda p: Request(max_tokens=32, response_format="json"), template="judge_correct",
                  reads="answer", known=lambda s: known, slots=("answer",), write=lambda given, s, row: {})
    got = planned_judges("nb", "depth_sweep", judge, SimpleNamespace(model=MODEL),
                         [Judged(known, {"answer": "At dawn."}), Judged(known)], Read("answer", MODEL, 64))
    priced = template_prompt_tokens(MODEL, "judge_correct", {"answer": REPLY_TOKENS["answer"]}, **known)
    assert got["calls"] == 2 and got["cached"] == 0
    assert got["prompt_tokens"] == round(count_prompt_tokens(MODEL, exact) + priced)
    assert "estimated" in got["stage"] and got["completion_tokens"] == 2 * expected_reply("exp", "judge")  # declared
    assert expected_reply("exp", "judge") == 8  # by the correctness kind (lclab.scoring.judge_kinds)


def test_no_experiment_plans_with_token_arithmetic_of_its_own():
    """Plans count prompts and read budgets the runs send; no experiment keeps its own tokens-per-thing figures."""
    found = []
    for path in sorted((paths.REPO / "lib" / "lclab").glob("*/experiment.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(a.name == "CHARS_PER_TOKEN" for a in node.names):
                found.append(f"{path.parent.name}: imports CHARS_PER_TOKEN")
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and "TOKENS" in t.id for t in node.targets):
                found.append(f"{path.parent.name}: {ast.unparse(node)}")
    assert found == []


def test_plans_read_declared_parameters_and_stage_names_and_only_the_listed_exceptions_keep_a_plan_function():
    """No plan reads a parameters dict by key (`p["x"]`) or names a gateway stage as a string literal (the
    constants and Stage values its run sends); the experiments with a plan function of their own are those
    docs/layout.md lists, with why."""
    from lclab.experiments import experiments

    plan_helpers = {"planned_replies", "planned_answers", "estimated", "planned_judges", "planned_stages"}
    found = []
    for path in sorted((paths.REPO / "lib" / "lclab").glob("*/experiment.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "p"
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                found.append(f"{path.parent.name}: {ast.unparse(node)}")
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) in plan_helpers
                    and any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[1:4])):
                found.append(f"{path.parent.name}: a stage named by a literal in {ast.unparse(node)[:60]}")
    assert found == []
    layout = (paths.REPO / "docs" / "layout.md").read_text(encoding="utf-8")
    table = layout[layout.index("| experiment | plan function | why |"):].split("\n\n")[0]
    listed = set(re.findall(r"^\| \d\d (\w+) \|", table, flags=re.M))
    assert {e.name for e in experiments() if e.plan is not None} == listed


def test_a_run_files_only_registered_experiments_and_a_folder_registers_under_its_own_name(monkeypatch):
    from lclab.experiments import Experiment, RegistrationError, register
    from lclab.runs.runner import Run

    with pytest.raises(KeyError, match="no experiment 'nli_eval'"):
        Run("nli_eval", "old-name")
    assert Run("nli", "x").dir == paths.RESULTS / "nli" / "x"
    namespace = {"__name__": "lclab.nli.experiment", "register": register, "Experiment": Experiment}
    with pytest.raises(RegistrationError, match="name it 'nli'"):
        exec("register(Experiment(name='nli_eval', notebook='05_nli_answer_eval'))", namespace)


def test_a_fan_out_is_the_declared_prior_until_a_run_measured_it():
    from lclab.planning.priors import COUNTS
    from lclab.planning.priced import fan_out

    assert fan_out("depth_sweep", "claims per text", "claim check", "claims", MODEL, 3) == (
        COUNTS["claims per text"], "claims per text declared")
    # two extractions, 24 checks of 3 premises each: 4 claims a text
    earlier_run("a", {"model": MODEL}, {"claims": (2, 0, 400, 80), "claim check": (20, 4, 4_000, 24)})
    per_text, source = fan_out("depth_sweep", "claims per text", "claim check", "claims", MODEL, 3)
    assert per_text == 4.0 and source == "claims per text measured in 1 run"


def test_07s_answers_on_the_embedded_model_are_priced_after_the_prefix_every_prompt_shares(monkeypatch):
    # The embedded engine answers 07's prompts one at a time, and each opens with the same system message and
    # instructions: llama.cpp keeps them from the call before, so the plan charges only the rest.
    from lclab.planning import plan as planning
    from lclab.planning.experiment_plan import plan_notebook
    from lclab.runs.notebooks import NOTEBOOKS, notebook_defaults

    defaults = notebook_defaults(NOTEBOOKS / "07_rag_ifeval.ipynb")
    p = {"models": [MODEL], "n_samples": 4}
    reused = plan_notebook("07_rag_ifeval", p, defaults)[0]
    monkeypatch.setattr(planning, "_shared_prefix_tokens", lambda model, before, prompt: 0)
    whole = plan_notebook("07_rag_ifeval", p, defaults)[0]
    assert reused["calls"] == whole["calls"] == 4 and reused["prompt_tokens"] == whole["prompt_tokens"]
    assert reused["seconds"] < 0.9 * whole["seconds"]


def test_02s_answers_are_priced_after_what_the_call_before_left_in_the_kv_cache(monkeypatch):
    # The run answers a set's methods back to back (long context, RAG, the frontier's other k): one at a time on
    # the embedded model each prompt keeps the template's opening, and an other k the chunks of the k before it.
    # A default run's answers read 19,906 of their 25,333 prompt tokens; its plan had priced all of them.
    from lclab.planning import plan as planning
    from lclab.planning.experiment_plan import plan_notebook
    from lclab.runs.notebooks import NOTEBOOKS, load_profile, notebook_defaults, parameters_for

    notebook = NOTEBOOKS / "02_context_vs_rag.ipynb"
    p = parameters_for(notebook, load_profile("smoke")) | {"model": MODEL, "closed_book": False}
    monkeypatch.setattr(planning, "seconds_for", lambda model, read, *rest, **kw: read)  # a row's prompt tokens read

    def answers(workers: int) -> dict:
        rows = plan_notebook(notebook.stem, p | {"max_workers": workers}, notebook_defaults(notebook))
        return {r["stage"].split(" (")[0]: r for r in rows if r["stage"].startswith("answer") and r["calls"]}

    one, concurrent = answers(1), answers(2)
    long, rag, other = (one[f"answer, {arm}"] for arm in ("long context", "RAG", "RAG at the frontier's other k"))
    opening = (rag["prompt_tokens"] - rag["seconds"]) / rag["calls"]
    assert 20 < opening < 200  # the chat template, the instruction, the first document's heading
    # every long-context call but the run's first follows another set's prompt
    assert long["prompt_tokens"] - long["seconds"] == pytest.approx(opening * (long["calls"] - 1), abs=1)
    assert other["prompt_tokens"] - other["seconds"] > 2 * opening * other["calls"]  # and a shared chunk each
    assert all(r["seconds"] == pytest.approx(r["prompt_tokens"], abs=1)  # concurrent calls keep nothing
               for r in concurrent.values() if r["calls"] > r["cached"])


def test_a_call_one_notebook_of_a_plan_prices_is_a_cache_hit_for_the_next():
    # 02's closed-book answers are 01's own prompts: by the time 02 runs, 01's replies are in the cache.
    from lclab.planning.plan import plan_scope, planned_answers

    prompts = ["When does the crossing open?", "Who runs the ferry?"]
    first = planned_answers("01", "answer", MODEL, prompts, Request(max_tokens=16))[0]
    alone = planned_answers("02", "answer", MODEL, prompts, Request(max_tokens=16))[0]
    assert first["cached"] == alone["cached"] == 0 and alone["seconds"] == first["seconds"] > 0  # plans apart
    with plan_scope():
        first = planned_answers("01", "answer", MODEL, prompts, Request(max_tokens=16))[0]
        again = planned_answers("02", "answer", MODEL, [prompts[1], "Where is the bridge?"],
                                Request(max_tokens=16))[0]
        other_budget = planned_answers("02", "answer", MODEL, prompts[:1], Request(max_tokens=32))[0]  # another request: asked anew
    assert first["cached"] == 0 and again["cached"] == 1 and again["calls"] == 2 and other_budget["cached"] == 0
    assert 0 < again["seconds"] < first["seconds"]


def test_judged_answers_repeat_as_the_answer_spread_says_across_stages_and_notebooks():
    from lclab.planning.plan import plan_scope
    from lclab.planning.priced import repeat_share

    one = [Judged({"question": "When?", "gold_answer": "At dawn."})]
    with plan_scope():
        # 4 answers to one question at spread 0.5 are 4 ** 0.5 = 2 distinct: half of them repeat
        assert repeat_share("judge", "judge_correct", one * 4, 0.5) == pytest.approx(0.5)
        # 9 more (another notebook, the same question and judge): 13 ** 0.5 - 2 = 1.6 new among them
        assert repeat_share("judge", "judge_correct", one * 9, 0.5) == pytest.approx(1 - (13 ** 0.5 - 2) / 9)
        other = [Judged({"question": "Who?", "gold_answer": "The ferryman."})]
        assert repeat_share("judge", "judge_correct", other, 0.5) == 0.0  # a question's first answer is new
        assert repeat_share("another judge", "judge_correct", one * 3, 1.0) == 0.0  # spread 1: every answer new
    assert repeat_share("judge", "judge_correct", one * 4, 0.5) == 0.0  # outside a plan nothing is counted


def test_the_answer_spread_is_fitted_on_the_latest_run_and_declared_before_any():
    from lclab.planning.priors import ANSWER_SPREAD
    from lclab.planning.priced import answer_spread

    assert answer_spread("depth_sweep") == (ANSWER_SPREAD, "answer spread declared")
    folder = paths.RESULTS / "depth_sweep" / "quick"
    folder.mkdir(parents=True)
    # two questions, 4 judged answers each, 2 distinct each: distinct = 4 ** b gives b = ln 2 / ln 4 = 0.5;
    # a row the judge did not read (an error) is left out
    rows = [{"question": q, "gold": "g", "response": r, "judge_correct": 1.0}
            for q in ("a", "b") for r in ("x", "x", "y", "y")]
    rows.append({"question": "a", "gold": "g", "response": "z", "judge_correct": None})
    pd.DataFrame(rows).to_json(folder / "result_items.jsonl", orient="records", lines=True)
    spread, source = answer_spread("depth_sweep")
    assert spread == pytest.approx(0.5) and source == "answer spread measured in run quick"


def test_a_prompt_holding_what_retrieval_finds_is_priced_at_k_chunks_of_its_pool_per_model_arm():
    """A stage that declares `retrieved` is priced by its template with k chunks of its pool's mean size, the
    same rule for every experiment; a sample that names its model is planned under that model's arm only."""
    from lclab.pipeline import Retrieved, each_model
    from lclab.planning.experiment_plan import planned_stages
    from lclab.runs.samples import Sample
    from lclab.scoring.logprob import score_request

    pool = ["The ferry leaves the northern bank at dawn.\n\n", "Tolls are paid in copper on the far side.\n\n"]
    stage = Stage("score", request=lambda p: score_request(), prompt=lambda s: s.input,
                  template="context_contains_answer",
                  known=lambda s: {"question": s.source["question"], "golden_answer": s.source["gold"]},
                  retrieved=Retrieved("context", k=lambda s: s["k"], pool=lambda s: s["pool"]),
                  write=lambda given, s, row: {})
    source = {"question": "When does the ferry leave?", "gold": "At dawn."}
    samples = [Sample(id=f"{m}:{k}", input=None, target=None, source=source,
                      metadata={"model": m, "k": k, "pool": pool}) for m in (MODEL, "other") for k in (1, 2)]
    arm = each_model(SimpleNamespace(models=[MODEL, "other"], max_workers=1))[0]
    assert arm.model == MODEL
    mine = [s for s in samples if s["model"] == arm.model]
    (row,) = planned_stages("03_x", "pg_discrete", arm, mine, (stage,))
    chunk = (count_tokens(MODEL, pool[0]) + count_tokens(MODEL, pool[1])) / 2
    frame = template_prompt_tokens(MODEL, "context_contains_answer", {}, question=source["question"],
                                   golden_answer=source["gold"])
    assert row["calls"] == 2 and row["cached"] == 0 and row["completion_tokens"] == 2
    assert row["prompt_tokens"] == round(2 * frame + 3 * chunk)
    assert row["stage"] == "score (estimated; replies: one token)"
    built = stage.with_retrieved(samples[1], pool[0] + pool[1])  # the run's prompt: the same template, filled
    assert abs(count_prompt_tokens(MODEL, built) - (frame + 2 * chunk)) <= 3
    with pytest.raises(ValueError, match="template and known"):
        Stage("score", request=lambda p: score_request(), prompt=lambda s: s.input,
              retrieved=Retrieved("context", k=lambda s: 1, pool=lambda s: pool), write=lambda g, s, r: {})
