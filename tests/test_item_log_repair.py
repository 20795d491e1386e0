"""What a full disk or a kill leaves behind harms nothing: an item log whose last line was cut without its newline
keeps the redone row whole, and a table written over an old one is either the old or the new, never empty."""

import json

import pandas as pd
import pytest
from lclab.runs.folders import ItemLog, write_atomic


def test_a_row_appended_after_a_cut_line_stays_whole(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps({"id": 1, "answer": "a"}) + "\n" + '{"id": 2, "answ')  # cut mid-row, no newline
    log = ItemLog(path, ["id"])
    log.append({"id": 2, "answer": "b"})
    log.append({"id": 3, "answer": "c"})
    assert [r["id"] for r in log.rows()] == [1, 2, 3]  # before the repair, row 2 was glued to the cut line
    assert log.done() == {(1,), (2,), (3,)}


def test_an_atomic_write_that_fails_leaves_the_old_table(tmp_path):
    path = tmp_path / "accounting.csv"
    pd.DataFrame({"calls": [3]}).to_csv(path, index=False)

    def disk_full(tmp):
        tmp.write_text("cal")  # a partial write, then the disk is full
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_atomic(path, disk_full)
    assert pd.read_csv(path)["calls"].tolist() == [3]
    assert [p.name for p in tmp_path.iterdir()] == ["accounting.csv"]  # no temporary file left behind
