"""How fast this machine computes, measured in a few seconds with numpy alone: what a plan scales the reference
machine's speeds by before set-up has built llama.cpp and fetched a model to probe (lclab.planning.probe).

Three figures, each the fastest of the tries made over about a second (a plan before set-up measures them again and
keeps each at its fastest): float32 matrix products on every core and on one (GFLOP/s), and a large array copy
(GB/s). Reading a prompt is matrix products on every core, so prefill and embedding scale with the first; decoding
one token reads every weight once but computes too, so it scales two thirds with the first and one third with the
copy; a grammar's check of each token runs on one thread, so it scales with the second
(lclab.planning.speed.SCALED_BY has the shares and how they were fitted). numpy's OpenBLAS is held to its AVX2
kernels (OPENBLAS_CORETYPE=Haswell), as the reference machine's figures were measured beside its AVX2 llama.cpp.
Set-up now builds llama.cpp for AVX-512 where the CPU has it (scripts/llama_cpp.sh), and on such a machine (a
2-core Xeon, 2026-11-29) the AVX2 figures priced the default profile 18 % long and numpy's own AVX-512 kernels 21 %
short: those see the build's faster prompt reading, but that Xeon decodes at half the speed its memory copy
predicts. Left at AVX2 until a reference machine is probed with the AVX-512 build (docs/benchmarks.md).

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

def fastest(work, window):
    # The fastest of tries spread over `window` seconds (5 at least), a pause between them: a burst of other work
    # on the cores (a package install's writes to disk, a process starting) slows some tries, not all of them.
    best, tries, began = float("inf"), 0, time.perf_counter()
    while tries < 5 or time.perf_counter() - began < window:
        t = time.perf_counter()
        work()
        best, tries = min(best, time.perf_counter() - t), tries + 1
        time.sleep(0.02)
    return best

rng = np.random.default_rng(0)
a, b = rng.random((1024, 1024), dtype=np.float32), rng.random((1024, 1024), dtype=np.float32)
flop = 2 * 1024 ** 3
a @ b  # warm-up: OpenBLAS's threads started, the buffers paged in
gflops = flop / fastest(lambda: a @ b, 1.0) / 1e9
with threadpool_limits(1):
    gflops_1 = flop / fastest(lambda: a @ b, 0.6) / 1e9
src = np.ones(32 * 2 ** 20, dtype=np.float64)  # 256 MiB: far past any cache, like a model's weights
dst = np.empty_like(src)
np.copyto(dst, src)
gbps = 2 * src.nbytes / fastest(lambda: np.copyto(dst, src), 0.6) / 1e9  # read and written
print(json.dumps({"gflops": round(gflops, 1), "gflops_1": round(gflops_1, 1), "gbps": round(gbps, 2)}))
"""


def measured() -> dict:
    """This machine's figures as kept in throughput.json, or {} if none were measured here."""
    return speed._entry(speed.PROXY_KEY)


def measure(fastest_kept: bool = False) -> dict:
    """Measure this machine's figures now (~3 s) and keep them in throughput.json; with `fastest_kept`, keep each
    figure at the fastest measured here so far (other work on the cores only ever slows a measurement)."""
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_NUM_THREADS": str(os.cpu_count() or 1)}
    env.pop("OMP_NUM_THREADS", None)  # a test worker's share is not the machine's
    done = subprocess.run([sys.executable, "-c", _MEASURE], env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the machine proxy failed: {done.stderr.strip()[-500:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    if fastest_kept:
        figures = {k: max(v, measured().get(k, 0)) for k, v in figures.items()}

    def keep(entry: dict) -> None:
        entry.clear()
        entry.update(figures)

    speed.update_record(speed.PROXY_KEY, keep)
    return figures


def ensure(again: bool = False) -> dict:
    """This machine's figures: as kept, else (or with `again`) measured now, each kept at the fastest measured
    here; the kept ones ({} if none: the reference's speeds unscaled) if measuring fails or this process was given
    only a share of the cores (a test worker's speed is not the machine's)."""
    kept = measured()
    if (kept and not again) or threads_limited():
        return kept
    try:
        return measure(fastest_kept=True)
    except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as err:
        print(f"machine proxy: not measured ({err}); the plan prices at "
              f"{'the figures kept' if kept else 'the reference machine' + chr(39) + 's speeds'}", file=sys.stderr)
        return kept


def ensure_for(models: list[str]) -> dict:
    """The figures a plan of the embedded `models` (names or .gguf paths) needs: measured again (~3 s; each kept
    at its fastest) when set-up has not probed one of them yet, else as kept."""
    return ensure(again=any(not speed._probe(f"local/{m}") for m in models))
