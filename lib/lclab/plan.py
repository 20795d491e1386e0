"""What a run will cost, before it runs: calls, tokens, cache hits and time (or money) per notebook and stage.

    ./run_all.sh --plan [--profile long] [NOTEBOOK ...]

No model is called and none is loaded: prompts are built and counted with the
models' tokenizers (a local model's vocabulary only, a server's tokenize route),
and answers already in the cache are looked up by their exact request. Judge
prompts are known only once their answer is; where it is cached, the judge call
is looked up too, else counted as a miss. Time comes from this machine's
measured throughput per model (`throughput.json` beside the models, updated at
the end of every run), money from `params/prices.yaml`.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pandas as pd
import yaml

from .models import cached, count_prompt_tokens
from .models.local_models import model_dir
from .paths import PARAMS

# Seconds per token on 2 cores (shared/OFFLINE_STACK.md): prefill, decode, and per-call overhead.
DEFAULT_SPEED = {"qwen2.5-coder-0.5b": (1 / 170, 1 / 20, 0.3), "qwen2.5-coder-1.5b": (1 / 85, 1 / 8, 0.5)}
UNKNOWN_LOCAL = (1 / 80, 1 / 8, 0.5)
JUDGE_PROMPT = 120  # tokens of a judge prompt besides the answer and reference it quotes
COLUMNS = ["notebook", "stage", "model", "calls", "cached", "prompt_tokens", "completion_tokens", "seconds", "cost_usd"]


def _machine() -> str:
    from .manifest import _cpu

    return f"{_cpu()} x{os.cpu_count()}"


def _throughput_file() -> Path:
    return model_dir() / "throughput.json"


def record_throughput(model: str, prompt_tokens: int, completion_tokens: int, calls: int, seconds: float) -> None:
    """Add a run's measured model time to this machine's record for the model (what plans estimate from)."""
    if not calls or seconds <= 0 or not model.startswith("local/"):
        return
    path = _throughput_file()
    known = json.loads(path.read_text()) if path.exists() else {}
    entry = known.setdefault(_machine(), {}).setdefault(model, {"prompt_tokens": 0, "completion_tokens": 0,
                                                                "calls": 0, "seconds": 0.0})
    for k, v in (("prompt_tokens", prompt_tokens), ("completion_tokens", completion_tokens), ("calls", calls),
                 ("seconds", seconds)):
        entry[k] += v
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, indent=1))


def seconds_for(model: str, prompt_tokens: float, completion_tokens: float, calls: float) -> float:
    """Estimated model seconds on this machine: the default speeds, scaled by what was measured here."""
    if not model.startswith("local/"):
        return math.nan
    prefill, decode, overhead = DEFAULT_SPEED.get(model.removeprefix("local/"), UNKNOWN_LOCAL)
    estimate = prompt_tokens * prefill + completion_tokens * decode + calls * overhead
    path = _throughput_file()
    seen = (json.loads(path.read_text()) if path.exists() else {}).get(_machine(), {}).get(model)
    if seen and seen["calls"]:
        predicted = seen["prompt_tokens"] * prefill + seen["completion_tokens"] * decode + seen["calls"] * overhead
        estimate *= seen["seconds"] / predicted if predicted else 1
    return estimate


def cost_for(model: str, prompt_tokens: float, completion_tokens: float) -> float:
    """Estimated cost from params/prices.yaml (USD per million tokens); NaN for a model without a price."""
    path = PARAMS / "prices.yaml"
    prices = (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}
    price = prices.get(model)
    if not price:
        return 0.0 if model.startswith(("local/", "hf/")) else math.nan
    return (prompt_tokens * price["input"] + completion_tokens * price["output"]) / 1e6


def row(notebook: str, stage: str, model: str, calls: int, cached_calls: int, prompt: float, completion: float) -> dict:
    todo = calls - cached_calls
    share = todo / calls if calls else 0
    return {"notebook": notebook, "stage": stage, "model": model, "calls": calls, "cached": cached_calls,
            "prompt_tokens": round(prompt), "completion_tokens": round(completion),
            "seconds": seconds_for(model, prompt * share, completion * share, todo),
            "cost_usd": cost_for(model, prompt * share, completion * share)}


def answers_and_judges(notebook: str, model: str, judge: str, prompts: list, max_tokens: int, judges_per: int,
                       reference_tokens: int = 20) -> list[dict]:
    """An answer per prompt (looked up in the cache) and `judges_per` judge calls per answer."""
    hits = [cached(model, p, max_tokens=max_tokens) for p in prompts]
    prompt_tokens = sum(count_prompt_tokens(model, p) for p in prompts)
    done = [h for h in hits if h is not None]
    answered_tokens = sum(h["completion_tokens"] for h in done) + max_tokens * (len(prompts) - len(done))
    return [row(notebook, "answer", model, len(prompts), len(done), prompt_tokens, answered_tokens),
            row(notebook, "judge", judge, len(prompts) * judges_per, 0,
                len(prompts) * judges_per * (JUDGE_PROMPT + reference_tokens + max_tokens), len(prompts) * judges_per * 8)]


def plan_notebook(notebook: str, params: dict, declared: dict) -> list[dict]:
    """The plan of one notebook under its parameters (defaults where not given)."""
    from .params import literal

    p = {name: literal(info["default"]) for name, info in declared.items()} | params
    planner = PLANNERS.get(notebook)
    return planner(notebook, p) if planner else []


def plan_table(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    if len(table):
        total = {"notebook": "total", "stage": "", "model": ""} | table[COLUMNS[3:]].sum(min_count=1).to_dict()
        table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    return table.astype({c: int for c in ("calls", "cached", "prompt_tokens", "completion_tokens")})


from .plans import PLANNERS  # noqa: E402  (the planners build on the helpers above)
