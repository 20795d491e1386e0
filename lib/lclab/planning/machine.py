"""How fast this machine computes, measured in about a second with numpy alone: what a plan scales the reference
machine's speeds by before set-up has built llama.cpp and fetched a model to probe (lclab.planning.probe).

Three figures, each the fastest of a few tries: float32 matrix products on every core and on one (GFLOP/s), and a
large array copy (GB/s). Reading a prompt is matrix products on every core, so prefill and embedding scale with
the first; decoding one token reads every weight once, so decode scales with the copy; a grammar's check of each
token and the scoring of a reply's logprobs run mostly on one thread, so they scale with the second. numpy's
OpenBLAS is held to its AVX2 kernels (OPENBLAS_CORETYPE=Haswell) because llama.cpp is built for AVX2 (see
scripts/llama_cpp.sh): on an AVX-512 machine its own choice would measure instructions llama.cpp does not use.

This is a proxy, calibrated on one machine (the reference's own figures sit beside its speeds, in
reference_speeds.json); the probe after set-up measures the models themselves and replaces it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ..models.llama_engine import threads_limited
from . import speed


# Run in a child process: OpenBLAS reads OPENBLAS_CORETYPE once, when numpy loads it.
_MEASURE = r"""
import json, time
import numpy as np
from threadpoolctl import threadpool_limits

def fastest(work, tries):
    best = float("inf")
    for _ in range(tries):
        t = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - t)
    return best

rng = np.random.default_rng(0)
a, b = rng.random((1024, 1024), dtype=np.float32), rng.random((1024, 1024), dtype=np.float32)
flop = 2 * 1024 ** 3
a @ b  # warm-up: OpenBLAS's threads started, the buffers paged in
gflops = flop / fastest(lambda: a @ b, 8) / 1e9
with threadpool_limits(1):
    a @ b
    gflops_1 = flop / fastest(lambda: a @ b, 4) / 1e9
src = np.ones(32 * 2 ** 20, dtype=np.float64)  # 256 MiB: far past any cache, like a model's weights
dst = np.empty_like(src)
np.copyto(dst, src)
gbps = 2 * src.nbytes / fastest(lambda: np.copyto(dst, src), 4) / 1e9  # read and written
print(json.dumps({"gflops": round(gflops, 1), "gflops_1": round(gflops_1, 1), "gbps": round(gbps, 2)}))
"""


def measured() -> dict:
    """This machine's figures as kept in throughput.json, or {} if none were measured here."""
    return speed._entry(speed.PROXY_KEY)


def measure() -> dict:
    """Measure this machine's figures now (~1 s) and keep them in throughput.json."""
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": str(os.cpu_count() or 1)}
    env.pop("OMP_NUM_THREADS", None)  # a test worker's share is not the machine's
    done = subprocess.run([sys.executable, "-c", _MEASURE], env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the machine proxy failed: {done.stderr.strip()[-500:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])

    def keep(entry: dict) -> None:
        entry.clear()
        entry.update(figures)

    speed.update_record(speed.PROXY_KEY, keep)
    return figures


def ensure() -> dict:
    """This machine's figures: as kept, else measured now; {} (the reference's speeds unscaled) if that fails or
    this process was given only a share of the cores (a test worker's speed is not the machine's)."""
    if figures := measured():
        return figures
    if threads_limited():
        return {}
    try:
        return measure()
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as err:
        print(f"machine proxy: not measured ({err}); the plan prices at the reference machine's speeds",
              file=sys.stderr)
        return {}
