"""./run_all.sh's live line per notebook (lclab.runs.progress): calls done of planned, elapsed, time left from the plan
as corrected by the calls so far, and the run's; rewritten in place on a terminal, a plain line per notebook where
the output is a file. The kernel tells the runner its calls through a file (models.accounting.CALLS_FILE_ENV)."""

import io
import json
import math
import os
import re
import signal
import subprocess
import sys

import pandas as pd
import pytest
from lclab.models import complete
from lclab.models.accounting import CALLS_FILE_ENV
from lclab.paths import REPO
from lclab.runs.progress import Calls, Planned, Watch, clock, estimate

PLAN = Planned(stages=[("answer", 10, 100.0)], calls=12, start=0.0)  # 10 calls to make (2 cached), 10 s each


def test_time_left_is_the_plans_rest_scaled_by_how_long_the_calls_done_took_against_their_plan():
    on_plan = estimate(PLAN, {"answer": [5, 0]}, elapsed=50.0)
    assert on_plan.done == 5 and on_plan.left == pytest.approx(50.0)  # half the plan left, at the plan's pace
    slower = estimate(PLAN, {"answer": [5, 0]}, elapsed=100.0)
    assert slower.left == pytest.approx(2 * on_plan.left)  # twice the plan's time so far: twice the rest
    hits = estimate(PLAN, {"answer": [5, 2]}, elapsed=50.0)
    assert hits.done == 7 and hits.left == on_plan.left  # a cache hit is a call done, not planned time spent


def test_a_stages_calls_fill_its_rows_in_order_and_the_start_counts_until_the_first_call():
    two = Planned(stages=[("answer", 2, 20.0), ("judge", 4, 8.0), ("answer", 2, 40.0)], calls=8, start=6.0)
    assert estimate(two, {}, elapsed=4.0).left == pytest.approx(2.0 + 68.0)  # still starting
    # 3 answers: the first row whole and half the second answer row; the judge not started
    now = estimate(two, {"answer": [3, 0]}, elapsed=46.0)
    assert now.spent_plan == pytest.approx(6 + 20 + 20) and now.left == pytest.approx((8 + 20) * 46 / 46)


def test_where_the_plan_cannot_price_a_stage_the_pace_of_the_calls_made_says_the_time_left():
    served = Planned(stages=[("answer", 10, math.nan)], calls=10, start=6.0)
    assert math.isnan(estimate(served, {}, elapsed=3.0).left)
    assert estimate(served, {"answer": [4, 0]}, elapsed=6.0 + 8.0).left == pytest.approx(6 * 2.0)
    assert clock(math.nan) == "?" and clock(75) == "1:15" and clock(3725) == "1:02:05"


def test_the_calls_file_is_read_as_it_grows_and_a_line_being_written_waits(tmp_path):
    path = tmp_path / "nb.calls"
    calls = Calls(path)
    assert calls.read() == {}  # no call yet: no file
    path.write_text('["answer", 1, 0]\n["answer", 0, 1]\n["embed", 3')
    assert calls.read() == {"answer": [1, 1]}
    with open(path, "a") as fh:
        fh.write('2, 0]\n')
    assert calls.read() == {"answer": [1, 1], "embed": [32, 0]}


def test_the_kernels_calls_reach_the_file_the_runner_names(tmp_path, monkeypatch):
    path = tmp_path / "nb.calls"
    monkeypatch.setenv(CALLS_FILE_ENV, str(path))
    complete("fake/answerer", "What is 2+2?", stage="answer")
    complete("fake/answerer", "What is 2+2?", stage="answer")  # from the cache
    monkeypatch.delenv(CALLS_FILE_ENV)
    complete("fake/answerer", "What is 3+3?", stage="answer")  # no runner: nothing told
    assert Calls(path).read() == {"answer": [1, 1]}


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_line_is_rewritten_in_place_and_the_run_left_adds_the_notebooks_to_come(tmp_path):
    out = Terminal()
    later = Planned(stages=[("answer", 4, 40.0)], calls=4, start=10.0)
    watch = Watch([(tmp_path / "a.ipynb", {}), (tmp_path / "b.ipynb", {})], dict, out, made={"a": PLAN, "b": later})
    assert watch.line("a", {"answer": [5, 0]}, 100.0).endswith("~1:40 left; run ~3:20 left")  # b's 50 s, x2
    with watch.notebook("a", tmp_path / "a.calls"):
        (tmp_path / "a.calls").write_text('["answer", 10, 0]\n')
    shown = out.getvalue()
    assert shown.startswith("\r") and "\x1b[K" in shown and shown.count("\n") == 1 and "10/12 calls" in shown
    assert not (tmp_path / "a.calls").exists() and CALLS_FILE_ENV not in os.environ


@pytest.mark.slow
def test_a_run_whose_output_is_a_file_prints_plain_lines_of_its_calls(tmp_path):
    """The fake model through the runner, its output to a file, a line every second (as every 30 s by default)."""
    env = {**os.environ, "LCLAB_PROGRESS_EVERY": "1"}
    log = tmp_path / "run.out"
    with open(log, "w") as out:
        run = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", "smoke", "--model",
                              "fake/answerer?latency=1", "07_rag_ifeval"], env=env, cwd=REPO, stdout=out,
                             stderr=subprocess.PIPE, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    text = log.read_text()
    assert "\r" not in text and "\x1b" not in text
    planned = int(re.search(r"^   plan: (\d+) calls", text, re.M).group(1))
    lines = re.findall(r"^   07_rag_ifeval: (\d+)/(\d+) calls, (\S+) elapsed(.*)$", text, re.M)
    assert len(lines) >= 2 and {int(of) for _, of, _, _ in lines} == {planned}
    done = [int(d) for d, _, _, _ in lines]
    assert done == sorted(done) and all(rest.startswith(", ~") for *_, rest in lines[:-1])
    assert lines[-1][-1].startswith(" (plan ")  # the notebook's end
    folder = next((tmp_path / "results" / "rag_ifeval").glob("smoke-*"))
    ledger = pd.read_csv(folder / "accounting.csv").set_index("stage").loc["total"]
    assert done[-1] == ledger["calls"] + ledger["cache_hits"] == planned
    assert json.loads((folder / "manifest.json").read_text())["status"] == "finished"


def test_a_plan_that_cannot_be_made_is_said_in_a_line_without_credentials_and_the_lines_go_on(tmp_path):
    def broken(notebook):
        raise ValueError("no route to openai/q@http://lab:CANARYPASS@gpu1:8000/v1")

    out = io.StringIO()
    watch = Watch([(tmp_path / "a.ipynb", {})], broken, out)
    assert "no plan for the live lines" in out.getvalue() and "CANARY" not in out.getvalue()
    assert watch.line("a", {"answer": [3, 1]}, 5.0) == "   a: 4 calls, 0:05 elapsed, ? left"


PLANNING_FOREVER = """
import signal, sys, time
from pathlib import Path
signal.signal(signal.SIGINT, signal.default_int_handler)
from lclab.runs.progress import plan_profile
def slow(notebook):
    print("planning", flush=True)
    time.sleep(60)
plan_profile([(Path("a.ipynb"), {})], slow, sys.stdout)
"""


def test_ctrl_c_while_the_run_is_planned_is_one_line_and_status_130():
    run = subprocess.Popen([sys.executable, "-c", PLANNING_FOREVER], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    assert run.stdout.readline() == "planning\n"  # the planning child is at work
    os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C does: the runner and the planning child alike
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130 and err.strip().splitlines() == [
        "!! interrupted before the first notebook: nothing ran"], err[-2000:]


def test_a_stage_with_every_call_cached_costs_no_time_even_where_its_model_cannot_be_priced():
    from lclab.runs.progress import planned

    rows = [{"stage": "answer", "gateway_stage": "answer", "calls": 4, "cached": 0, "seconds": 40.0},
            {"stage": "judge (served)", "calls": 4, "cached": 4, "seconds": math.nan},
            {"stage": "start (kernel, imports, model loads; declared)", "calls": 0, "cached": 0, "seconds": 6.0}]
    plan = planned(rows)
    assert plan.priced and plan.seconds == 46.0 and plan.calls == 8 and plan.stages[1] == ("judge", 0, 0.0)
