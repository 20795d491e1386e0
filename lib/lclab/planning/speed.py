"""This machine's speed for each local model: what a plan prices a call at.

Three sources, the later ones first where they exist: default speeds (DEFAULT_SPEED, fitted on one 2-core
machine); the speed probe ./run_all.sh runs once per machine after set-up (lclab.planning.probe: prefill, decode,
the extras a JSON grammar and a reply's logprobs cost per token, a call's fixed cost, loads, an embedded text);
and the record of every run's measured model time (throughput.json beside the models, updated at the end of
every run), whose median ratio to the prediction scales a plan.
"""

from __future__ import annotations

import functools
import json
import math
import os
import statistics
from pathlib import Path

from ..models.local_models import cpu_name, model_dir

# Seconds per token on 2 cores (shared/OFFLINE_STACK.md): prefill, decode, per-call overhead, and the
# prompt length at which attention doubles a prompt token's cost. Reading a prompt of n tokens takes
# prefill * n * (1 + n / attention): attention grows with every token already read, so one 32k prompt
# costs far more than thirty-two 1k prompts. The 0.5B's prefill and attention length are fitted on this
# machine's prompt-eval times at 4k, 8k, 16k and 32k tokens with flash attention, the setting long windows
# use (benchmarks/kv_cache_settings.py; OLS, R^2 0.9999: 158 tokens/s, 7,886 tokens; without flash attention
# 167 tokens/s, 6,948); the 1.5B's attention length is scaled from it by parameters per layer over width
# (its measured calls stop at 2k tokens, too short to fit).
DEFAULT_SPEED = {"qwen2.5-coder-0.5b": (1 / 160, 1 / 20, 0.3, 7_900),
                 "qwen2.5-coder-1.5b": (1 / 85, 1 / 8, 0.5, 14_400)}
UNKNOWN_LOCAL = (1 / 80, 1 / 8, 0.5, 12_000)


def _machine() -> str:
    return f"{cpu_name()} x{os.cpu_count()}"


def _throughput_file() -> Path:
    return model_dir() / "throughput.json"


def record_throughput(model: str, prompt_tokens: int, completion_tokens: int, calls: int, seconds: float,
                      prompt_tokens_sq: int | None = None) -> None:
    """Add a run's measured model time to this machine's record for the model (what plans estimate from).

    `prompt_tokens_sq`: the sum over calls of each prompt's tokens squared (what attention costs)."""
    if not calls or seconds <= 0 or not model.startswith("local/"):
        return
    if prompt_tokens_sq is None:
        prompt_tokens_sq = _equal_lengths(prompt_tokens, calls)

    def add(entry: dict) -> None:
        if "prompt_tokens_sq" not in entry:  # a record from before lengths were kept: as if its calls were equal
            entry["prompt_tokens_sq"] = _equal_lengths(entry["prompt_tokens"], entry["calls"])
        for k, v in (("prompt_tokens", prompt_tokens), ("completion_tokens", completion_tokens), ("calls", calls),
                     ("seconds", seconds), ("prompt_tokens_sq", prompt_tokens_sq)):
            entry[k] += v
        # Each run's measured time over what the speeds predict for it: plans scale by the median of these, so a
        # run made while other work shared the cores (a ratio several times the rest) does not slow every later
        # plan, as it would in the totals above.
        predicted = _predicted(model, prompt_tokens, prompt_tokens_sq, completion_tokens, calls)
        if predicted > 0:
            entry["runs"] = [*entry.get("runs", []), round(seconds / predicted, 4)][-MAX_RUNS:]

    update_record(model, add)


def update_record(model: str, change) -> None:
    """Apply `change` to this machine's entry for `model` in throughput.json (read afresh), and write the file
    whole or not at all: another process (a plan) may be reading it."""
    path = _throughput_file()
    known = json.loads(path.read_text()) if path.exists() else {}
    change(known.setdefault(_machine(), {}).setdefault(model, {"prompt_tokens": 0, "completion_tokens": 0,
                                                               "calls": 0, "seconds": 0.0}))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(known, indent=1))
    os.replace(partial, path)


MAX_RUNS = 50  # per-run ratios kept per model and machine


def speeds(model: str, probed: bool = True) -> tuple[float, float, float, float]:
    """(prefill, decode, overhead, attention) of `model`: the default speeds, with prefill, decode and the
    per-call overhead as this machine's speed probe measured them where it has (lclab.planning.probe)."""
    prefill, decode, overhead, attention = DEFAULT_SPEED.get(model.removeprefix("local/"), UNKNOWN_LOCAL)
    probe = _probe(model) if probed else {}
    if probe:
        prefill, decode = probe["prefill_s_per_token"], probe["decode_s_per_token"]
        overhead = probe.get("call_s", overhead)
    return prefill, decode, overhead, attention


def embed_seconds(embedder: str, declared: float) -> float:
    """Seconds a text costs a run's embed stage: as probed here (the cache's writes included), else `declared`."""
    return _probe(embedder).get("embed_s_per_text", declared)


def load_seconds(model: str, declared: float) -> float:
    """Seconds a run's first call to `model` spends loading it: as probed here, else `declared`."""
    return _probe(model).get("load_s", declared)


def extra_seconds(model: str, constrained: bool, scored: bool) -> float:
    """Seconds a reply token costs besides decoding: under a JSON grammar (`constrained`), and with its logprobs
    read after it (`scored`); as probed here, else none (the default speeds hold them)."""
    probe = _probe(model)
    return (probe.get("grammar_s_per_token", 0.0) if constrained else 0.0) \
        + (probe.get("logprobs_s_per_token", 0.0) if scored else 0.0)


def _entry(model: str) -> dict:
    """This machine's record for `model` (read once per change of the file), {} if none."""
    return _record(_throughput_file()).get(_machine(), {}).get(model) or {}


def _probe(model: str) -> dict:
    return _entry(model).get("probe") or {}


def _predicted(model: str, prompt: float, squares: float, completion: float, n_calls: float,
               probed: bool = True) -> float:
    """Model seconds the speeds predict (prompt read with attention, reply decoded, per-call overhead)."""
    prefill, decode, overhead, attention = speeds(model, probed)
    return (prompt + squares / attention) * prefill + completion * decode + n_calls * overhead


def _record(path: Path) -> dict:
    """throughput.json as a dict, read once per change of the file (a plan prices dozens of rows from it)."""
    if not path.exists():
        return {}
    return _parsed(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _parsed(path: str, mtime_ns: int) -> dict:
    return json.loads(Path(path).read_text())


def speed_factor(model: str) -> tuple[float, str]:
    """(how much slower than the speeds it was predicted at this machine ran the model, and where that figure
    comes from): the median ratio of this machine's runs since its probe, else 1 on the probed speeds, else the
    pooled ratio of every call measured here to the default speeds."""
    seen = _entry(model)
    basis = "the probed speeds" if seen.get("probe") else "the default speeds"
    if seen.get("runs"):
        factor = statistics.median(seen["runs"])
        return factor, f"median of {len(seen['runs'])} runs measured here ({factor:.2f} x {basis})"
    probe = seen.get("probe")
    if probe and "embed_s_per_text" in probe:
        return 1.0, f"this machine's speed probe ({1000 * probe['embed_s_per_text']:.0f} ms a passage)"
    if probe:
        return 1.0, (f"this machine's speed probe ({probe['prompt_tokens_per_s']:.0f} prompt tokens/s, "
                     f"{probe['decode_tokens_per_s']:.0f} decoded/s; no run measured since)")
    if seen.get("calls"):
        squares = seen.get("prompt_tokens_sq", _equal_lengths(seen["prompt_tokens"], seen["calls"]))
        predicted = _predicted(model, seen["prompt_tokens"], squares, seen["completion_tokens"], seen["calls"])
        factor = seen["seconds"] / predicted if predicted else 1.0
        return factor, f"all {seen['calls']} calls measured here, pooled ({factor:.2f} x the default speeds)"
    return 1.0, "the default speeds of a reference machine (nothing measured here yet: set-up probes this one)"


def _equal_lengths(prompt_tokens: float, calls: float) -> float:
    """Sum of squared prompt lengths when every call's prompt has the same length."""
    return prompt_tokens ** 2 / calls if calls else 0.0


def seconds_for(model: str, prompt_tokens: float, completion_tokens: float, calls: float,
                prompt_tokens_sq: float | None = None, constrained: bool = False, scored: bool = False) -> float:
    """Estimated model seconds on this machine: the default speeds, scaled by what was measured here.

    `prompt_tokens_sq` is the sum over calls of each prompt's length squared; without it the calls are
    taken to be of equal length. `constrained`: the replies are decoded under a JSON grammar (a response
    format), `scored`: their logprobs are read after them (longer than one token); each costs a probed machine
    its measured extra per reply token (the default speeds include none)."""
    if not model.startswith("local/"):
        return math.nan
    if prompt_tokens_sq is None:
        prompt_tokens_sq = _equal_lengths(prompt_tokens, calls)
    extra = completion_tokens * extra_seconds(model, constrained, scored)
    return (_predicted(model, prompt_tokens, prompt_tokens_sq, completion_tokens, calls) + extra) \
        * speed_factor(model)[0]
