"""Ctrl-C during a notebook: the whole process group gets SIGINT (the runner and its kernel alike). The runner
prints one line and exits 130; the kernel's own complaints while it is shut down (a ZMQError traceback,
"KeyboardInterrupt caught in kernel") go to its log file beside the executed copy, not to the terminal."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lclab.models.fault_server import FaultServer

pytestmark = [pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def test_ctrl_c_prints_one_line_and_keeps_the_kernel_log_in_a_file(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO / "lib"), "LCLAB_OUTPUT_DIR": str(tmp_path)}
    with FaultServer(delay=30) as server:  # every answer takes 30 s: the interrupt lands mid-call
        run = subprocess.Popen([sys.executable, "-m", "lclab.runs.notebooks", "--profile", "smoke", "--model",
                                f"openai/slow@{server.base_url}", "09_synthetic_tasks"], env=env, cwd=REPO,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.time() + 120
        while not server.requests and time.time() < deadline:  # the kernel is up and its first call is out
            time.sleep(0.5)
        assert server.requests, "the notebook never called the endpoint"
        os.killpg(run.pid, signal.SIGINT)  # what Ctrl-C does in a terminal
        out, err = run.communicate(timeout=120)
    assert run.returncode == 130, err[-2000:]
    assert err.strip().splitlines() == ["!! interrupted in 09_synthetic_tasks.ipynb: finished items are kept; "
                                        "the same command resumes it"]
    assert "Traceback" not in out + err and "ZMQError" not in out + err
    assert list((tmp_path / "results" / "notebooks").glob("*/09_synthetic_tasks.kernel.log"))
