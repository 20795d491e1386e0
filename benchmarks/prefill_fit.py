"""How a local model's call time grows with prompt length on this machine, fitted on the calls already in the
model-call cache: the source of the attention lengths in lclab.planning.speed.DEFAULT_SPEED.

    .venv/bin/python benchmarks/prefill_fit.py [--cache .cache/llm]

Every cached reply of an embedded model records its prompt tokens, completion tokens and latency. Per model,
an ordinary least squares fit of

    seconds = overhead + a * prompt + b * prompt^2 + c * completion

gives the prefill price per token (a), the attention term (b) and the decode price (c); a / b is the prompt
length at which attention doubles what a prompt token costs. A reply whose prompt shared a prefix with the
call before it was cheaper than the fit says (llama.cpp skipped that prefix), so b is fitted well only when
the cache holds long prompts; the fit prints its R^2 and the longest prompt it saw.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import statsmodels.api as sm
from lclab.models.local_models import model_dir
from lclab.paths import llm_cache_dir


def cached_calls(cache: Path) -> dict[str, list[tuple[int, int, float]]]:
    """(prompt tokens, completion tokens, seconds) of every cached local-model reply, by model file."""
    hashes = model_dir() / "hashes.json"
    names = {v["sha256"]: Path(k).name for k, v in json.loads(hashes.read_text()).items()} if hashes.exists() else {}
    calls = defaultdict(list)
    for path in cache.glob("*/*.json"):
        try:
            entry = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        backend = (entry.get("request") or {}).get("backend") or {}
        value = entry.get("value") or {}
        name = names.get(backend.get("model_sha256"))
        if name and value.get("call_latency_s") and value.get("prompt_tokens"):
            calls[name].append((value["prompt_tokens"], value.get("completion_tokens") or 0, value["call_latency_s"]))
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=None, help="model-call cache (default: LCLAB_CACHE_DIR)")
    args = parser.parse_args()
    for name, rows in sorted(cached_calls(args.cache or llm_cache_dir()).items()):
        prompt, completion, seconds = np.array(rows, dtype=float).T
        fit = sm.OLS(seconds, sm.add_constant(np.column_stack([prompt, prompt ** 2, completion]))).fit()
        overhead, a, b, c = fit.params
        attention = f"{a / b:,.0f} tokens" if b > 0 else "not measurable (no growth beyond linear)"
        print(f"{name}: {len(rows)} calls, prompts up to {prompt.max():,.0f} tokens, R^2 {fit.rsquared:.2f}\n"
              f"  prefill {1 / a:,.0f} tokens/s, decode {1 / c:,.1f} tokens/s, overhead {overhead:.2f} s, "
              f"attention length {attention}")


if __name__ == "__main__":
    main()
