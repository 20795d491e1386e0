"""Token counts kept on disk (lclab.models.token_counts): a count made in one process is read by the next instead of
tokenizing again; a vocabulary file changed on disk is a new vocabulary; a folder that cannot hold the file leaves
counting as it was."""

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from lclab.models import token_counts
from lclab.models.token_counts import TokenCounts, counted, vocabulary_id

REPO = Path(__file__).resolve().parents[1]


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def never() -> int:
    raise AssertionError("tokenized again")


@pytest.fixture
def vocabulary(tmp_path) -> Path:
    path = tmp_path / "vocabulary.gguf"
    path.write_bytes(b"a vocabulary")
    return path


def kept_in(path: Path, monkeypatch) -> TokenCounts:
    """A store at `path`, the one counted() reads."""
    store = TokenCounts(path)
    monkeypatch.setattr(token_counts, "kept_counts", lambda: store)
    return store


def test_a_count_made_once_is_read_by_the_next_process(vocabulary, tmp_path, monkeypatch):
    store = kept_in(tmp_path / "models" / "token_counts.sqlite", monkeypatch)
    assert counted(vocabulary, False, digest("Rome is in Italy."), lambda: 5) == 5
    assert counted(vocabulary, True, digest("Rome is in Italy."), lambda: 6) == 6  # special tokens parsed: apart
    store.flush()
    # another process, another handle on the same file
    read = ("import sys; from pathlib import Path; from lclab.models.token_counts import TokenCounts, vocabulary_id; "
            "print(TokenCounts(Path(sys.argv[1])).get(vocabulary_id(sys.argv[2]), False, bytes.fromhex(sys.argv[3])))")
    asked = [str(store.path), str(vocabulary), digest("Rome is in Italy.").hex()]
    out = subprocess.run([sys.executable, "-c", read, *asked], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(REPO / "lib")})
    assert out.stdout.strip() == "5"
    monkeypatch.setattr(token_counts, "kept_counts", lambda: TokenCounts(store.path))
    assert counted(vocabulary, False, digest("Rome is in Italy."), never) == 5
    assert counted(vocabulary, True, digest("Rome is in Italy."), never) == 6


def test_a_vocabulary_changed_on_disk_counts_again(vocabulary, tmp_path, monkeypatch):
    kept_in(tmp_path / "token_counts.sqlite", monkeypatch)
    assert counted(vocabulary, False, digest("text"), lambda: 1) == 1
    vocabulary.write_bytes(b"another vocabulary, fetched again")
    vocabulary_id.cache_clear()  # a new process looks the file up again
    assert counted(vocabulary, False, digest("text"), lambda: 2) == 2


def test_a_folder_that_cannot_hold_the_counts_leaves_counting_in_memory(vocabulary, tmp_path, monkeypatch):
    (tmp_path / "models").write_text("a file where the folder should be")
    store = kept_in(tmp_path / "models" / "token_counts.sqlite", monkeypatch)
    assert [counted(vocabulary, False, digest(str(i)), lambda: 3) for i in range(300)] == [3] * 300
    store.flush()
    assert store.get(vocabulary_id(str(vocabulary)), False, digest("1")) is None


def test_a_counts_file_broken_under_a_running_process_is_counted_again_not_an_error(vocabulary, tmp_path,
                                                                                    monkeypatch):
    store = kept_in(tmp_path / "token_counts.sqlite", monkeypatch)
    assert counted(vocabulary, False, digest("text"), lambda: 4) == 4
    store.flush()
    with sqlite3.connect(store.path) as other:  # another process empties the folder's counts mid-run
        other.execute("DROP TABLE counts")
    assert store.get(vocabulary_id(str(vocabulary)), False, digest("text")) is None
    assert counted(vocabulary, False, digest("text"), lambda: 4) == 4  # counted again
    store.flush()  # its batch has no table to go to: dropped, not raised
