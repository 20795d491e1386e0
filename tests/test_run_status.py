"""A run whose items failed says so: its manifest's status (partial or failed) with the count and the first
error, and the notebook runner reports it and ends non-zero instead of passing it off as finished."""

import json
import time

import pandas as pd
from lclab import paths
from lclab.runs.notebooks import failed_runs_since
from lclab.runs.runner import Run, Step


def run_with(outcomes: list[bool], name: str):
    def step(item, row):
        if not item:
            raise ConnectionError("HTTP 500 from http://127.0.0.1:9/v1")
        return {"ok": True}

    with Run("status_check", name) as run:
        items = run.trials(list(enumerate(outcomes)), key=lambda t: (str(t[0]),),
                           describe=lambda t: {"n": t[0]}, steps=[Step("answer", lambda t, row: step(t[1], row))])
        return run.result(pd.DataFrame([{"rows": len(items)}]), items=items)


def manifest(name: str) -> dict:
    return json.loads((paths.RESULTS / "status_check" / name / "manifest.json").read_text())


def test_the_status_counts_failed_items_and_keeps_the_first_error():
    started = time.time()
    run_with([True, True], "good")
    run_with([True, False, True], "some")
    run_with([False, False], "none")
    assert manifest("good")["status"] == "finished"
    some = manifest("some")
    assert some["status"] == "partial" and some["trials"]["failed_items"] == 1
    assert some["trials"]["first_error"] == "answer: ConnectionError: HTTP 500 from http://127.0.0.1:9/v1"
    assert manifest("none")["status"] == "failed"
    lines = failed_runs_since(started)
    assert len(lines) == 2 and lines[0].startswith("run status_check/none failed: 2 of 2 items failed")
    assert "the first: answer: ConnectionError" in lines[1] and "some partial: 1 of 3" in lines[1]
