"""How ./run_all.sh starts a notebook's kernel, so that a run prints one line per notebook and what went wrong:

- the kernel talks to the runner over IPC sockets in a temp folder, not plain-text TCP on loopback (ipykernel
  warns about that in every notebook);
- its loops print one final line each, not a bar redrawn into the executed copy (LCLAB_PROGRESS=final, read by
  lclab.runs.parallel); its cell output stays in the executed copy, not on the terminal;
- its own log (stderr) goes to a file beside the executed copy: Ctrl-C reaches the kernel too, and its ZMQError
  traceback while the runner shuts it down, or "KeyboardInterrupt caught in kernel", are no terminal lines;
- its garbage collector looks for cycles after 50,000 new objects, not Python's 700: a notebook imports pandas,
  scipy, matplotlib, seaborn and often chromadb, langchain and openai, whose hundreds of thousands of objects
  live as long as the kernel, and the collector walked them again and again (a fifth of those imports' time;
  four smoke notebooks warm 27.4 -> 25.4 s, three runs each). Garbage is still collected, in fewer passes.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

INTERRUPTED = threading.Event()  # set by a Ctrl-C in the runner (on_interrupt)
GC_THRESHOLD = "50000, 20, 20"  # the kernel's gc.set_threshold (above)


def quiet_kernel(log: Path) -> dict:
    """papermill.execute_notebook's engine arguments for such a kernel, whose log goes to `log`."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets.config import Config

    class KernelLoggingToFile(AsyncKernelManager):
        async def _async_launch_kernel(self, kernel_cmd, **kw):
            kernel_cmd = [*kernel_cmd, f"--IPKernelApp.exec_lines=import gc; gc.set_threshold({GC_THRESHOLD})"]
            with open(log, "ab") as stream:  # the kernel keeps its own copy of the descriptor
                kw["stderr"] = stream
                return await super()._async_launch_kernel(kernel_cmd, **kw)

    config = Config()
    config.KernelManager.transport = "ipc"
    # The sockets' path: a folder of its own in the temp dir, not "kernel-ipc-N" in the working directory (the
    # notebooks folder, where a killed kernel's sockets were left behind).
    config.KernelManager.ip = str(Path(tempfile.mkdtemp(prefix="lclab-kernel-")) / "ipc")
    os.environ["LCLAB_PROGRESS"] = "final"  # inherited by the kernel
    return {"config": config, "kernel_manager_class": KernelLoggingToFile}


def interrupted(notebook: Path, working: Path, output: Path) -> int:
    """Ctrl-C in ./run_all.sh: one line (the run's own cleanup has written its manifest and accounting), exit
    status 130; the notebook's executed copy, as far as it got, moved into place."""
    if working.exists():
        os.replace(working, output)
    print(f"\n!! interrupted in {notebook.name}: finished items are kept; the same command resumes it",
          file=sys.stderr)
    return 130


def on_interrupt() -> None:
    """In the runner: remember a Ctrl-C (the kernel may die of it before its reply, and nbclient then raises
    DeadKernelError, not KeyboardInterrupt), and keep nbclient's and asyncio's logs of that shutdown off the
    terminal: the runner prints its own line for every notebook that failed or was interrupted."""
    for name in ("papermill", "nbclient", "asyncio", "traitlets"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return  # ignored (a background job) or handled by someone else: leave it so

    def remember(signum, frame):
        INTERRUPTED.set()
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, remember)
