"""Faults a real machine produces: a damaged cache entry, a read-only cache folder, two runs in one folder."""

import json
import shutil
import subprocess
import sys

import pytest
from lclab.models import complete, reset_backend_registry
from lclab.models.cache import CorruptCacheEntry
from lclab.models.errors import CacheError
from lclab.models.fault_server import FaultServer
from lclab import paths
from lclab.paths import llm_cache_dir
from lclab.runs.folders import RunLockedError
from lclab.runs.runner import Run


@pytest.fixture
def endpoint(monkeypatch):
    with FaultServer(reply="ok") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        reset_backend_registry()
        yield server
    reset_backend_registry()


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],  # cut short (a full disk, a copy killed half-way)
    lambda text: "[1, 2, 3]",  # JSON, but not an entry
    lambda text: json.dumps({"request": {}, "value": {"text": "ok"}}),  # an entry with fields missing
    lambda text: "\udcff garbage",  # not even UTF-8
], ids=["truncated", "not-an-entry", "fields-missing", "not-utf8"])
def test_a_damaged_cache_entry_is_a_miss_reported_once_and_rewritten(endpoint, damage):
    complete("openai/m", "hello", stage="t")
    (entry,) = [p for p in llm_cache_dir().rglob("*.json")]
    entry.write_bytes(damage(entry.read_text()).encode("utf-8", errors="surrogateescape"))
    with pytest.warns(CorruptCacheEntry, match="damaged") as caught:
        again = complete("openai/m", "hello", stage="t")
        complete("openai/m", "hello", stage="t")  # rewritten: a hit, and nothing more to report
    assert len(caught) == 1 and not again.cached and len(endpoint.requests) == 2
    assert json.loads(entry.read_text())["value"]["text"] == "ok"


def test_a_cache_folder_that_cannot_be_written_stops_the_run_before_any_work(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(blocker / "llm"))
    with pytest.raises(CacheError, match="is not writable .*LCLAB_CACHE_DIR"):
        with Run("depth_sweep", "ro"):
            pytest.fail("the run started")


def test_a_read_only_cache_folder_is_refused_in_one_line_by_the_runner(tmp_path):
    # A real read-only file system: a private mount namespace with the cache folder bind-mounted read-only.
    if not shutil.which("unshare"):
        pytest.skip("unshare (util-linux) is not installed")
    cache = tmp_path / "cache"
    cache.mkdir()
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip(f"no mount namespaces here: {probe.stderr.decode().strip()}")
    script = (f'mount --bind "{cache}" "{cache}" && mount -o remount,ro,bind "{cache}" && '
              f'LCLAB_CACHE_DIR="{cache}" exec "{sys.executable}" -m lclab.runs.notebooks --profile smoke 01_lost_in_the_middle')
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"run_all.sh: the model cache folder {cache} is not writable (Read-only file system): "
        "point LCLAB_CACHE_DIR at a folder you can write"]


HOLD = """
import sys, time
from lclab.runs.runner import Run
with Run("depth_sweep", "shared"):
    print("holding", flush=True)
    time.sleep(120)
"""


def test_a_second_run_in_the_same_folder_is_refused_naming_the_first(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(RunLockedError, match=rf"in use by process {holder.pid} on .*another run_name"):
            with Run("depth_sweep", "shared"):
                pytest.fail("two runs in one folder")
        with Run("depth_sweep", "other"):  # another run_name is fine
            pass
    finally:
        holder.kill()  # SIGKILL: the lock goes with its process
        holder.wait()
    with Run("depth_sweep", "shared") as run:
        assert (run.dir / ".lock").read_text().startswith("process ")



def test_a_run_folder_that_cannot_be_written_is_refused_saying_what_to_do(tmp_path):
    from lclab.runs.folders import RunFolderError, run_dir

    (run_dir("depth_sweep", "blocked") / ".lock").mkdir()  # a lock that cannot be opened (root writes read-only)
    with pytest.raises(RunFolderError, match="blocked cannot be written .*LCLAB_OUTPUT_DIR"):
        with Run("depth_sweep", "blocked"):
            pytest.fail("a run without its lock")
    (paths.RESULTS / "depth_sweep" / "a-file").write_text("")  # where the run folder should be
    with pytest.raises(RunFolderError, match="a-file cannot be written"):
        run_dir("depth_sweep", "a-file")


def test_a_refused_notebook_keeps_its_last_executed_copy_and_is_not_called_failed(tmp_path, monkeypatch, capsys):
    from lclab.runs import notebooks

    class Refused(Exception):
        ename, evalue = "RunFolderError", "the run folder /x cannot be written (Permission denied): make it writable"

    def execute(nb, params, output):
        output.write_text("half-written")
        raise Refused()

    monkeypatch.setattr(notebooks, "execute", execute)
    monkeypatch.setattr(notebooks, "executed_dir", lambda profile, model: tmp_path / "executed")
    kept = tmp_path / "executed" / "01_lost_in_the_middle.ipynb"
    kept.parent.mkdir()
    kept.write_text("the last good run")
    assert notebooks.main(["--profile", "smoke", "01_lost_in_the_middle"]) == 2  # nothing started
    err = capsys.readouterr().err
    assert "01_lost_in_the_middle.ipynb refused: the run folder /x cannot be written" in err
    assert "failed:" not in err and "refused (not started" in err
    assert kept.read_text() == "the last good run" and list(kept.parent.glob(".*.ipynb")) == []
