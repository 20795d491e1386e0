"""A run whose items failed says so: its manifest's status (partial or failed) with the count and the first
error, and the notebook runner reports it and ends non-zero instead of passing it off as finished."""

import json
import time

import pandas as pd
import pytest
from lclab import paths
from lclab.experiments import Experiment, register, unregister
from lclab.runs.manifest import failed_runs_since
from lclab.runs.runner import Run, Step
from lclab.runs.samples import Sample


@pytest.fixture(autouse=True)
def status_check():
    """A registered experiment for these runs (a Run files only registered experiments)."""
    register(Experiment(name="status_check", notebook="status_check"))
    yield
    unregister("status_check")


def samples(values: list) -> list[Sample]:
    return [Sample(id=str(i), input=f"item {i}", source=v) for i, v in enumerate(values)]


def run_with(outcomes: list[bool], name: str):
    def step(item, row):
        if not item:
            raise ConnectionError("HTTP 500 from http://127.0.0.1:9/v1")
        return {"ok": True}

    with Run("status_check", name) as run:
        items = run.trials(samples(outcomes), key=lambda t: (t.id,), describe=lambda t: {"n": int(t.id)},
                           steps=[Step("answer", lambda t, row: step(t.source, row))])
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


def test_a_bug_in_the_lab_stops_the_run_with_its_traceback_and_keeps_the_finished_rows():
    from lclab.models.errors import FatalError

    def step(item, row):
        if item == 2:
            return {}["judge_correct"]  # a lab bug: KeyError, not the item's doing
        if item == 1:
            raise FatalError("HTTP 400 from http://127.0.0.1:9/v1: bad request")  # the item's doing
        return {"ok": True}

    with pytest.raises(KeyError, match="judge_correct"):
        with Run("status_check", "bug") as run:
            run.trials(samples([0, 1, 2, 3]), key=lambda t: (t.id,), describe=lambda t: {"n": t.source},
                       steps=[Step("answer", lambda t, row: step(t.source, row))])
    rows = pd.read_json(paths.RESULTS / "status_check" / "bug" / "items.jsonl", lines=True)
    assert rows["n"].tolist() == [0, 1]  # finished before the bug: kept, the model-caused failure with its reason
    assert rows["error"].tolist()[1].startswith("answer: FatalError: HTTP 400")
    assert manifest("bug")["status"] == "failed"


@pytest.mark.parametrize("bug", [TypeError("unsupported operand"), AttributeError("no attribute 'text'")])
def test_a_bug_in_a_later_step_with_workers_stops_the_run(bug):
    def judge(item, row):
        raise bug

    with pytest.raises(type(bug)):
        with Run("status_check", f"bug-{type(bug).__name__}") as run:
            run.trials(samples([0, 1, 2]), key=lambda t: (t.id,), describe=lambda t: {"n": t.source},
                       steps=[Step("answer", lambda t, row: {"ok": True}), Step("judge", judge, 2)])


def test_skipped_corpus_files_reach_the_manifest_and_the_terminal_line_without_failing_the_run(tmp_path):
    from lclab.runs.manifest import terminal_notes_since
    from lclab.runs.runner import skipped_note
    from lclab.text.corpus import load_corpus

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "good.txt").write_text("A real document about something. " * 20, encoding="utf-8")
    (tmp_path / "docs" / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "docs" / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    loaded = load_corpus(str(tmp_path / "docs"))
    started = time.time() - 1
    with Run("status_check", "skipping") as run:
        run.result(pd.DataFrame([{"rows": 0}]), items=pd.DataFrame(), notes=skipped_note(loaded.skipped))
    assert manifest("skipping")["status"] == "finished" and failed_runs_since(started) == []
    (line,) = terminal_notes_since(started)
    assert line.startswith("run status_check/skipping: 2 corpus files skipped:")
    assert "empty.txt" in line and "latin1.txt" in line


def test_what_a_run_repaired_by_itself_reaches_its_manifest_and_the_terminal_lines(tmp_path):
    from lclab.models.cache import CorruptCacheEntry, DiskCache
    from lclab.runs.manifest import terminal_notes_since

    cache = DiskCache(tmp_path / "cache", required=("text",))
    cache.put({"q": 1}, {"text": "ok"})
    next((tmp_path / "cache").rglob("*.json")).write_text("{cut sho")
    started = time.time() - 1
    with Run("status_check", "repairing") as run:
        (run.dir / "items.jsonl").write_text('{"fingerprint": "a", "ok": true}\n{"fingerprint": "b", "o')
        with pytest.warns(CorruptCacheEntry), pytest.warns(UserWarning, match="cut short"):
            assert cache.get({"q": 1}) is None  # a damaged entry: a miss, said
            items = run.trials(samples([0]), key=lambda t: (t.id,), describe=lambda t: {"n": t.source},
                               steps=[Step("answer", lambda t, row: {"ok": True})])
        run.result(pd.DataFrame([{"rows": len(items)}]), items=items)
    repaired = manifest("repairing")["trials"]["recovered"]
    assert len(repaired) == 2 and "damaged" in repaired[0] and "cut short" in repaired[1]
    lines = terminal_notes_since(started)
    assert len(lines) == 2 and all(line.startswith("run status_check/repairing: ") for line in lines)
    assert "treated as a miss" in lines[0] and "items.jsonl.damaged" in lines[1]
