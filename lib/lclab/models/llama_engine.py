"""llama.cpp's engine settings for the embedded models (attention, KV cache, GPU layers), and a way to keep its
C-level stderr chatter out of a plan's output."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from pathlib import Path

_KV_TYPES = {"f16": 1, "q8_0": 8}  # GGML type ids llama.cpp takes for its K and V cache
LLAMA_DEFAULTS = {"flash_attn": False, "type_k": 1, "type_v": 1, "n_gpu_layers": 0}
LONG_WINDOW = 8192  # above this n_ctx, flash attention is on unless LCLAB_FLASH_ATTN says otherwise


def engine_settings(n_ctx: int) -> dict:
    """llama.cpp's attention settings, from the environment (docs/long-contexts.md has the measurements):

    LCLAB_FLASH_ATTN     1 or 0: flash attention; unset, on when the window is raised past 8192 tokens (long
                         prompts, where it is faster and leaner) and off below (the cached default runs)
    LCLAB_KV_TYPE        f16 (default) or q8_0: how K and V are cached (q8_0 needs flash attention)
    LCLAB_N_GPU_LAYERS   layers offloaded to a GPU in a CUDA or Metal build (-1: all; default 0)
    """
    flash = os.environ.get("LCLAB_FLASH_ATTN", "1" if n_ctx > LONG_WINDOW else "0") != "0"
    kv = os.environ.get("LCLAB_KV_TYPE", "f16")
    if kv not in _KV_TYPES:
        raise ValueError(f"LCLAB_KV_TYPE={kv!r}: use one of {sorted(_KV_TYPES)}")
    if kv != "f16" and not flash:
        raise ValueError(f"LCLAB_KV_TYPE={kv} needs flash attention (unset LCLAB_FLASH_ATTN=0)")
    return {"flash_attn": flash, "type_k": _KV_TYPES[kv], "type_v": _KV_TYPES[kv],
            "n_gpu_layers": int(os.environ.get("LCLAB_N_GPU_LAYERS", "0"))}


# The CPU features scripts/llama_cpp.sh compiles llama.cpp for AVX-512 with (else AVX2): kept the same in both.
AVX512_NEEDS = ("avx512f", "avx512bw", "avx512vl", "avx512_vnni")


@functools.lru_cache(maxsize=1)
def cpu_build() -> str:
    """"avx512" or "avx2": which of set-up's two llama.cpp builds runs the embedded models here. Their kernels
    differ, and so do the last digits of a reply's probabilities (a judge's p by <= 0.01 in the median, 0.09 at
    most; 2026-11-29). The installed build's own report, else (before set-up) the build set-up makes: the one
    LCLAB_LLAMA_CMAKE_ARGS asks for where set (an AVX2 build on an AVX-512 CPU: a slower machine's kernels), else
    the one for this CPU."""
    try:
        import llama_cpp
    except ImportError:
        if asked := os.environ.get("LCLAB_LLAMA_CMAKE_ARGS"):
            return "avx512" if "-DGGML_AVX512_VNNI=ON" in asked.split() else "avx2"
        cpuinfo = Path("/proc/cpuinfo")
        flags = set(cpuinfo.read_text().split()) if cpuinfo.exists() else set()
        return "avx512" if all(f in flags for f in AVX512_NEEDS) else "avx2"
    return "avx512" if b"AVX512_VNNI = 1" in llama_cpp.llama_print_system_info() else "avx2"


def llama_threads() -> int:
    """Threads llama.cpp computes with: LCLAB_THREADS, else every core. The test suite runs one worker per core
    with one thread each (tests/conftest.py): the Python between calls then overlaps instead of leaving a core
    idle, and a one-thread engine never waits at a barrier for a thread that lost its core."""
    return int(os.environ.get("LCLAB_THREADS") or os.cpu_count() or 2)


def threads_limited() -> bool:
    """Whether this process was given fewer threads than the machine has cores (its speed is not the machine's)."""
    return llama_threads() < (os.cpu_count() or 1)


@contextlib.contextmanager
def quiet_stderr():
    """File descriptor 2 sent to /dev/null for the block: llama.cpp writes there from C, past Python's sys.stderr."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
