"""Write lib/lclab/planning/reference_speeds.json from this machine: what every plan prices at before a machine has
probed its own models (lclab.planning.speed), scaled by that machine's numpy figures (lclab.planning.machine).

It measures this machine's numpy figures and probes each embedded model and the default embedder afresh
(lclab.planning.probe), so run it with nothing else on the cores, after set-up has fetched both models.

--one-core checks the scaling rule (lclab.planning.speed.SCALED_BY) on a second machine this one can be: its first
core alone, one thread. It probes the models and measures the figures there (nothing is kept), and prints how much
slower each speed was than on every core, and how much slower the rule predicts from the figures.

    .venv/bin/python benchmarks/reference_speeds.py [--write]     (without --write: measure and print only)
    .venv/bin/python benchmarks/reference_speeds.py --figures [--write]     (the numpy figures only)
    .venv/bin/python benchmarks/reference_speeds.py --one-core
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from lclab.models.embeddings import DEFAULT_EMBEDDER
from lclab.models.local_models import cpu_name
from lclab.planning import machine, probe, speed

MODELS = ["local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-1.5b"]
OUT = Path(__file__).resolve().parents[1] / "lib" / "lclab" / "planning" / "reference_speeds.json"
PROBES = 3
SPEEDS = ("prefill_s_per_token", "decode_s_per_token", "grammar_s_per_token", "logprobs_s_per_token")


def figures_now(times: int = 3) -> dict:
    """This machine's numpy figures, each the fastest of `times` measurements: as a machine keeps its own (a plan
    before set-up keeps each figure at the fastest measured, lclab.planning.machine.ensure)."""
    tries = [machine.measure() for _ in range(times)]
    print(f"numpy figures: {tries}")
    return {k: max(t[k] for t in tries) for k in tries[0]}


def reference(write: bool, figures_only: bool = False) -> int:
    figures = figures_now()
    print(f"numpy figures, fastest: {figures}")
    if figures_only:  # the models' probes kept as they are
        if write:
            OUT.write_text(json.dumps(json.loads(OUT.read_text()) | {"proxy": figures}, indent=1) + "\n")
            print(f"wrote the figures into {OUT}")
        return 0
    models = {}
    for model in MODELS:
        # One probe catches the machine at one moment (the 0.5B read 146-156 tokens/s in probes minutes apart):
        # the reference is each speed's median of PROBES, its load the first probe's (a process's first load).
        probes = [probe.probe(model) for _ in range(PROBES)]
        print(f"{model}: " + "; ".join(f"{r['prompt_tokens_per_s']:.0f} prompt tokens/s, {r['decode_tokens_per_s']:.1f}"
                                       f" decoded/s" for r in probes))
        models[model] = {k: (probes[0][k] if k == "load_s" else statistics.median(r[k] for r in probes))
                         for k in probes[0] if k not in ("factor", "seconds")}
    embedder = [probe.probe_embedder(DEFAULT_EMBEDDER) for _ in range(PROBES)]
    models[DEFAULT_EMBEDDER] = {"embed_s_per_text": statistics.median(r["embed_s_per_text"] for r in embedder),
                                "load_s": embedder[0]["load_s"]}
    embedder = models[DEFAULT_EMBEDDER]
    print(f"{DEFAULT_EMBEDDER}: {1000 * embedder['embed_s_per_text']:.0f} ms a passage")
    record(figures, models, write)
    if write:
        OUT.write_text(json.dumps({"machine": f"{cpu_name()} x{os.cpu_count()}", "proxy": figures,
                                   "models": models}, indent=1) + "\n")
        print(f"wrote {OUT}")
    return 0


def record(figures: dict, models: dict, written: bool) -> None:
    """The figures and the models' median speeds as a row of docs/benchmarks.md (benchmarks/measured_rows.py)."""
    from lclab.models.llama_engine import cpu_build
    from measured_rows import append

    small, large = (models[m] for m in MODELS)
    print(append("speed_probes", [{
        "build": {"avx512": "AVX-512", "avx2": "AVX2"}.get(cpu_build(), cpu_build()),
        "when": "reference (lib/lclab/planning/reference_speeds.json, median of three)" if written
                else f"benchmarks/reference_speeds.py, median of {PROBES}",
        "numpy_gflops": figures["gflops"], "numpy_gflops_one_core": figures["gflops_1"], "copy_gb_s": figures["gbps"],
        "small_prompt_tok_s": f"{small['prompt_tokens_per_s']:.0f}", "small_decode_tok_s": f"{small['decode_tokens_per_s']:.0f}",
        "large_prompt_tok_s": f"{large['prompt_tokens_per_s']:.0f}", "large_decode_tok_s": f"{large['decode_tokens_per_s']:.0f}"}]))


def measured_here() -> dict:
    """The figures and the models' probes in this process, nothing kept (the child of --one-core)."""
    speed.update_record = lambda model, change: None
    probe.threads_limited = lambda: False  # the share is the point here
    out = {"figures": machine.measure()}
    for model in MODELS:
        out[model] = probe.probe(model)
    return out


def one_core() -> int:
    env = {**os.environ, "LCLAB_THREADS": "1"}
    child = subprocess.run(["taskset", "-c", "0", sys.executable, __file__, "--child"], env=env, check=True,
                           capture_output=True, text=True)
    here = json.loads(child.stdout.strip().splitlines()[-1])
    ratios = {k: speed.REFERENCE["proxy"][k] / v for k, v in here["figures"].items()}
    print(f"one core: numpy figures {here['figures']} (the reference's / these: "
          + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()) + ")")
    print(f"{'model':28} {'speed':22} {'slower, measured':>17} {'predicted':>10} {'error':>7}")
    for model in MODELS:
        for name in SPEEDS:
            slower = here[model][name] / speed.REFERENCE["models"][model][name]
            predicted = speed._scale(name, ratios)
            print(f"{model:28} {name:22} {slower:17.2f} {predicted:10.2f} {predicted / slower - 1:+7.0%}")
    return 0


if __name__ == "__main__":
    if "--child" in sys.argv[1:]:
        print(json.dumps(measured_here()))
        sys.exit(0)
    flags = sys.argv[1:]
    sys.exit(one_core() if "--one-core" in flags else reference("--write" in flags, "--figures" in flags))
