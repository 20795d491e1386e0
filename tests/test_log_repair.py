"""A kill -9 at any line of any append-only log the lab writes, then a rerun (the same command): every JSONL and CSV
file of the run folder reads with a strict reader (`pd.read_json(lines=True)`, `pd.read_csv`) and nothing written
whole is lost. One repair (lclab.recoveries.repair_tail) runs before each log is appended to: a last line cut
without its newline is moved to `<file>.damaged`, one only missing its newline gets it."""

import json
import shutil
import subprocess
import sys

import pandas as pd
import pytest
from lclab.recoveries import repair_tail
from lclab.runs.folders import log_accounting

N = 3
RUN = "from lclab.rag_ifeval import run_models\nrun_models(['fake/answerer'], run_name={name!r}, n_samples={n}, " \
      "max_tokens=32)\n"


def run(name: str) -> None:
    from lclab.rag_ifeval import run_models

    run_models(["fake/answerer"], run_name=name, n_samples=N, max_tokens=32)


def strict_read_all(folder) -> dict[str, pd.DataFrame]:
    """Every JSONL and CSV of the run folder, read strictly (a line glued to a cut one raises here)."""
    tables = {p.name: pd.read_json(p, lines=True) for p in folder.glob("*.jsonl")}
    # (a table with nothing in it is an empty line: models_paired.csv of a run of one model)
    return tables | {p.name: pd.read_csv(p) for p in folder.glob("*.csv") if p.read_bytes().strip()}


def prompts(folder) -> set[tuple]:
    rows = pd.read_json(folder / "answerer.prompts.jsonl", lines=True)
    return {(json.dumps(k, sort_keys=True), s, h) for k, s, h in zip(rows["key"], rows["stage"], rows["prompt_sha256"])}


def test_a_cut_row_is_moved_aside_and_a_row_only_missing_its_newline_is_kept(tmp_path):
    cut, whole = tmp_path / "cut.jsonl", tmp_path / "whole.jsonl"
    cut.write_text('{"id": 1}\n{"id": 2, "answ')
    whole.write_text('{"id": 1}\n{"id": 2}')
    assert "cut short" in repair_tail(cut) and cut.read_text() == '{"id": 1}\n'
    assert (tmp_path / "cut.jsonl.damaged").read_text() == '{"id": 2, "answ\n'
    assert "kept" in repair_tail(whole) and whole.read_text() == '{"id": 1}\n{"id": 2}\n'
    assert repair_tail(whole) is None and repair_tail(tmp_path / "none.jsonl") is None


@pytest.mark.parametrize("cut_at", [10, 60], ids=["in-the-header", "in-a-row"])
def test_an_accounting_log_cut_anywhere_takes_the_next_invocation_and_reads(tmp_path, cut_at):
    table = pd.DataFrame({"stage": ["answer", "total"], "calls": [3, 3], "model": ["fake/answerer", ""]})
    log_accounting(tmp_path, "first", "finished", table)
    path = tmp_path / "accounting_log.csv"
    path.write_bytes(path.read_bytes()[:cut_at])  # a kill while the first invocation's rows were written
    with pytest.warns(UserWarning, match="cut short"):
        log_accounting(tmp_path, "second", "finished", table)
    read = pd.read_csv(path)
    assert list(read.columns) == ["invocation", "status", "stage", "calls", "model"]
    assert read.query("invocation == 'second'")["calls"].tolist() == [3, 3]


def lines(path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def killed_states(whole):
    """(log, line, files): what a kill -9 in the middle of each line of each append-only log of the finished run in
    `whole` leaves. A prompt line is written before its call and an item row after it, and the accounting log at
    the end: a kill mid prompt line leaves the rows of the items whose prompts came before, a kill mid item row
    the prompts up to its own, a kill mid accounting line every other file whole."""
    items, asked = lines(whole / "answerer.jsonl"), lines(whole / "answerer.prompts.jsonl")
    ids = lambda rows: [json.loads(r)["id"] for r in rows]  # noqa: E731
    asked_ids = [json.loads(r)["key"]["id"] for r in asked]
    half = lambda line: line[: len(line) // 2]  # noqa: E731
    for i, line in enumerate(asked):
        yield "answerer.prompts.jsonl", i, {"answerer.prompts.jsonl": b"".join(asked[:i]) + half(line),
                                            "answerer.jsonl": b"".join(r for r in items if
                                                                       json.loads(r)["id"] in asked_ids[:i])}
    for i, line in enumerate(items):
        yield "answerer.jsonl", i, {"answerer.jsonl": b"".join(items[:i]) + half(line),
                                    "answerer.prompts.jsonl": b"".join(p for p, a in zip(asked, asked_ids)
                                                                       if a in ids(items[: i + 1]))}
    accounting = lines(whole / "accounting_log.csv")
    for i, line in enumerate(accounting):
        files = {p.name: p.read_bytes() for p in whole.iterdir() if p.is_file() and p.name != ".lock"}
        yield "accounting_log.csv", i, files | {"accounting_log.csv": b"".join(accounting[:i]) + half(line)}


def test_a_kill_at_any_line_of_any_log_then_a_rerun_leaves_every_file_strictly_readable(tmp_path):
    whole = tmp_path / "results" / "rag_ifeval" / "whole"
    run("whole")
    expected_prompts, expected = prompts(whole), pd.read_json(whole / "answerer.jsonl", lines=True)
    states = list(killed_states(whole))
    assert len(states) >= 2 * N + 2  # every prompt line, every item row, the accounting log's header and rows
    for i, (log, line, files) in enumerate(states):
        folder = whole.with_name(f"killed{i}")
        folder.mkdir()
        shutil.copy(whole / "answerer.samples.jsonl", folder)  # written whole before the first call
        for name, data in files.items():
            (folder / name).write_bytes(data)
        with pytest.warns(UserWarning, match="cut short"):
            run(folder.name)  # the same command again
        tables = strict_read_all(folder)
        assert prompts(folder) == expected_prompts, (log, line)
        rows = tables["answerer.jsonl"].drop_duplicates("id", keep="last")
        assert sorted(rows["id"]) == sorted(expected["id"]) and rows["error"].isna().all(), (log, line)
        assert (folder / f"{log}.damaged").read_bytes() == files[log].splitlines(keepends=True)[-1] + b"\n"


KILLED_MID_PROMPT = """
import os, signal
import lclab.runs.prompts_log as prompts_log

class HalfThenKill:
    # the first prompt line is half on disk when the process dies, as a kill -9 mid-write leaves it
    def __init__(self, fh): self.fh = fh
    def write(self, text):
        self.fh.write(text[: len(text) // 2]); self.fh.flush(); os.kill(os.getpid(), signal.SIGKILL)

real = prompts_log.PromptLog._file  # the log as the run keeps it open, each line written to it
prompts_log.PromptLog._file = lambda self: HalfThenKill(real(self))
"""


def test_a_run_killed_with_its_first_prompt_line_half_written_reruns_to_whole_logs(tmp_path):
    folder = tmp_path / "results" / "rag_ifeval" / "killed"
    command = RUN.format(name="killed", n=N)
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_PROMPT + command], capture_output=True, text=True)
    assert killed.returncode == -9, killed.stderr[-2000:]
    half = (folder / "answerer.prompts.jsonl").read_bytes()
    assert half and not half.endswith(b"\n")  # the state the issue describes: a fragment, no newline
    rerun = subprocess.run([sys.executable, "-c", command], capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    tables = strict_read_all(folder)
    assert len(tables["answerer.prompts.jsonl"]) == N and tables["answerer.jsonl"]["id"].nunique() == N
    assert (folder / "answerer.prompts.jsonl.damaged").read_bytes() == half + b"\n"
    assert "cut short" in rerun.stderr


def test_a_label_file_saved_without_its_last_newline_keeps_that_label_and_one_cut_short_is_moved_aside(tmp_path):
    from lclab.explore.desk import _append

    saved, cut = tmp_path / "saved.csv", tmp_path / "cut.csv"
    saved.write_text("key,label\na,1")  # a text editor's save: the last row whole, no newline
    cut.write_text("key,label\na,1\nb")  # a kill in the middle of row b
    with pytest.warns(UserWarning, match="whole and is kept"):
        _append(saved, ["key", "label"], {"key": "c", "label": 0})
    with pytest.warns(UserWarning, match="cut short"):
        _append(cut, ["key", "label"], {"key": "c", "label": 0})
    assert pd.read_csv(saved)["key"].tolist() == ["a", "c"]
    assert pd.read_csv(cut)["key"].tolist() == ["a", "c"] and (tmp_path / "cut.csv.damaged").read_text() == "b\n"
