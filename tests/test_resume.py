"""A run killed (SIGKILL) or interrupted (SIGINT, Ctrl-C) part-way, then rerun: the item log stays readable, no
finished row and no finished model call is repeated, and the tables equal those of an uninterrupted run
(RAG-IFEval on the deterministic fake model, half a second a call: resuming is the lab's plumbing, not the
model's; RAG-IFEval on the real 0.5B is test_notebooks.py's)."""

import json
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

pytestmark = pytest.mark.slow
# Each test's time on one thread beside the other worker (as in test_notebooks.py): handed out after the smoke
# notebooks and before the shorter model tests (conftest), so the suite does not end on one of them.
TYPICAL_SECONDS = {"ctrl-c": 30, "kill-9": 30}

N = 3
RUN = """
import signal
import sys
# A shell starts background jobs (`./run_tests.sh &`) with SIGINT ignored, and Python then keeps it ignored:
# restore Ctrl-C's KeyboardInterrupt so the test stops the child however the suite was launched.
signal.signal(signal.SIGINT, signal.default_int_handler)
from lclab.rag_ifeval import run_models
run_models(["fake/answerer?latency=0.5"], run_name=sys.argv[1], n_samples={n}, max_tokens=32)
""".format(n=N)


def start(run_name: str) -> subprocess.Popen:
    # The isolated fixture's LCLAB_CACHE_DIR and LCLAB_OUTPUT_DIR reach the child through the environment.
    return subprocess.Popen([sys.executable, "-c", RUN, run_name], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def lines(path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_a_stopped_run_resumes_without_repeating_a_row_or_a_call_and_ends_with_the_same_tables(tmp_path, stop):
    out = tmp_path / "results" / "rag_ifeval"
    log = out / "killed" / "answerer_latency_0.5.jsonl"
    proc = start("killed")
    deadline = time.time() + 300
    while not lines(log) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(stop)  # SIGKILL: no cleanup of any kind runs; SIGINT: KeyboardInterrupt where it stands
    assert proc.wait(timeout=120) != 0
    finished = lines(log)  # every line of the log parses
    assert 1 <= len(finished) < N, "the run should have been stopped part-way"
    if stop == signal.SIGINT:  # an interrupted run still leaves the record of the calls it made
        interrupted = pd.read_csv(out / "killed" / "accounting.csv").set_index("stage").loc["total"]
        assert interrupted["calls"] >= len(finished)

    rerun = start("killed")
    assert rerun.wait(timeout=600) == 0, rerun.stderr.read()
    rows = lines(log)
    assert sorted(r["id"] for r in rows) == sorted({r["id"] for r in rows}) and len(rows) == N  # no row twice
    assert rows[:len(finished)] == finished  # the finished rows were kept as they were
    ledger = pd.read_csv(out / "killed" / "accounting.csv").set_index("stage").loc["total"]
    unfinished = N - len(finished)
    # Only the unfinished samples reach the model (one may have been cached just before the kill).
    assert ledger["calls"] + ledger["cache_hits"] == unfinished and ledger["calls"] >= unfinished - 1

    # Every invocation that ended in Python is in the run's accounting log, and the manifest sums them.
    invocations = pd.read_csv(out / "killed" / "accounting_log.csv").query("stage == 'total'")
    statuses = ["interrupted", "finished"] if stop == signal.SIGINT else ["finished"]  # SIGKILL: no cleanup
    assert invocations["status"].tolist() == statuses
    assert invocations["calls"].iloc[-1] == ledger["calls"]
    to_date = json.loads((out / "killed" / "manifest.json").read_text())["accounting_to_date"]
    assert to_date["invocations"] == len(statuses) and to_date["calls"] == invocations["calls"].sum()
    if stop == signal.SIGINT:
        assert to_date["calls"] == interrupted["calls"] + ledger["calls"]

    whole = start("whole")  # the same samples uninterrupted, from the model cache
    assert whole.wait(timeout=600) == 0, whole.stderr.read()
    assert pd.read_csv(out / "whole" / "accounting.csv").set_index("stage").loc["total", "calls"] == 0
    pd.testing.assert_frame_equal(pd.read_csv(out / "killed" / "summary.csv"),
                                  pd.read_csv(out / "whole" / "summary.csv"))
