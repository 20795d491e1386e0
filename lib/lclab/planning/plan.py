"""What a run will cost, before it runs: calls, tokens, cache hits and time (or money) per notebook and stage.

    ./run_all.sh --plan [--profile long] [NOTEBOOK ...]

No model is called and none is loaded: prompts are built and counted with the
models' tokenizers (a local model's vocabulary only, a server's tokenize route),
and answers already in the cache are looked up by their exact request. Judge
prompts are known only once their answer is; where it is cached, the judge call
is looked up too, else counted as a miss. Time comes from this machine's speed per
model (lclab.planning.speed: default speeds, the probe set-up runs once, every run's
measured throughput), money from `params/prices.yaml`.
"""

from __future__ import annotations

import collections
import contextlib
import json
import math

import pandas as pd
import yaml

from ..models import Request, cached, count_prompt_tokens
from ..models.backends import shared_prefix_tokens
from ..paths import PARAMS
# The speeds a call is priced at live in lclab.planning.speed; these names are imported from here too.
from .speed import (DEFAULT_SPEED, UNKNOWN_LOCAL, _equal_lengths, embed_basis, embed_seconds,  # noqa: F401
                    load_seconds, record_throughput, seconds_for, speed_factor)

# The one fallback for text that no tokenizer can count yet: characters per token of English prose.
CHARS_PER_TOKEN = 4
COLUMNS = ["notebook", "stage", "model", "calls", "cached", "prompt_tokens", "completion_tokens", "seconds", "cost_usd"]


def cost_for(model: str, prompt_tokens: float, completion_tokens: float) -> float:
    """Estimated cost from params/prices.yaml (USD per million tokens); NaN for a model without a price."""
    path = PARAMS / "prices.yaml"
    prices = (yaml.safe_load(path.read_text()) or {}) if path.exists() else {}
    price = prices.get(model) or prices.get(model.split("@")[0])  # the whole spec, else its served name
    if not price:
        return 0.0 if model.startswith(("local/", "hf/")) else math.nan
    return (prompt_tokens * price["input"] + completion_tokens * price["output"]) / 1e6


def row(notebook: str, stage: str, model: str, calls: int, cached_calls: int, prompt: float, completion: float,
        todo: list[tuple[int, int]] | None = None, request: Request | None = None) -> dict:
    """One plan row. Time and cost are for the calls not cached. `todo`, when known: per call still to
    make, (its prompt tokens, the tokens of it the model already holds from the previous call); else
    the calls are taken to share the prompt tokens equally, none reused. `request`: what the calls ask besides
    their prompt (a JSON response format, logprobs: each costs per reply token, seconds_for)."""
    to_make = calls - cached_calls
    share = to_make / calls if calls else 0
    if todo is None:
        todo_prompt, todo_sq = prompt * share, _equal_lengths(prompt, calls) * share
    else:  # a reused prefix is not read again: only tokens after it cost, at their positions' price
        todo_prompt, todo_sq = sum(n - kept for n, kept in todo), sum(n * n - kept * kept for n, kept in todo)
    return {"notebook": notebook, "stage": stage, "gateway_stage": stage.split(" (")[0].split(",")[0], "model": model,
            "calls": calls, "cached": cached_calls,
            "prompt_tokens": round(prompt), "completion_tokens": round(completion),
            "seconds": seconds_for(model, todo_prompt, completion * share, to_make, todo_sq, *reply_kind(request)),
            "cost_usd": cost_for(model, todo_prompt, completion * share)}


# Seconds per text embedded (2 cores), as the runs' embed stages take them (the index writes in it; the model's load
# is the start row's): cold default runs embedded 1,167 texts (03, 06) in 144 s of stage wall on one machine
# (0.12 s each) and 1,283 texts (02, 03, 06) in 127 s on another (0.10 s each). The figure this replaces, 0.26 s,
# was one run's stage wall with the model's loads and a first index in it: it priced 03's and 06's embeddings
# 2.5-4 times too long. An embedder without a figure here has its time shown as unknown. A plan prices a text at the
# median of this machine's runs, else its probe, else the reference's, and only then here (speed.embed_basis): one
# machine probed 27-35 ms a text, its notebooks' embed stages took 50-60 ms (#91 §4; lclab.models.embeddings: why).
EMBED_SECONDS = {"local/all-MiniLM-L6-v2": 0.11}


def planned_embeddings(notebook: str, embedder: str, texts: list[str], unknown: int = 0,
                       stage: str = "embed") -> dict:
    """One plan row for the texts a run embeds (chunks it indexes, queries it searches with, and the store's
    dimension probe): each looked up in the embedding cache as the run would, without loading the embedder.
    `unknown`: texts not known before the run (generated questions), each counted as a call to make. Its
    `priced_at` says which figure a text's seconds are: "measured in N runs", "probe", "reference", "declared"."""
    from ..models.embeddings import DIMENSION_PROBE, DiskCache, embedding_cache_dir, get_embedder

    try:
        identity = get_embedder(embedder).identity
    except (ImportError, FileNotFoundError):  # a plan before set-up: the embedder is not installed yet
        identity = None
    cache = DiskCache(embedding_cache_dir(), required=("vector",))
    texts = [DIMENSION_PROBE, *texts]
    unique = list(dict.fromkeys(texts))  # a text met again in the run is a cache hit by then
    to_make = unknown + sum(identity is None or cache.get({"embedder": identity, "text": t}) is None
                            for t in unique)
    texts += [""] * unknown
    local = embedder.startswith("local/")
    per_text, basis = embed_basis(embedder, EMBED_SECONDS.get(embedder, math.nan)) if local else (math.nan, "unknown")
    return {"notebook": notebook, "stage": stage, "model": embedder, "calls": len(texts),
            "cached": len(texts) - to_make,
            "prompt_tokens": 0, "completion_tokens": 0, "seconds": to_make * per_text,
            "cost_usd": 0.0 if local else math.nan, "priced_at": basis}


def one_at_a_time_local(model: str, workers: int) -> bool:
    """Whether consecutive prompts reach the embedded model one by one (`workers` concurrent calls), so a shared
    prefix is reused."""
    return model.startswith("local/") and workers == 1


def _shared_prefix_tokens(model: str, before, prompt) -> int:
    """Tokens at the start of `prompt` that equal the start of `before` (what llama.cpp keeps in its KV cache)."""
    return shared_prefix_tokens(model, before, prompt)


def planned_answers(notebook: str, stage: str, model: str, prompts: list, request: Request,
                    reuse_prefix: bool = False, reply: float | None = None, held: list | None = None) -> list[dict]:
    """One plan row: an answer per prompt, each looked up in the cache and counted at its own length.

    `reuse_prefix`: the prompts are sent one at a time, in this order, to a local model, which keeps the
    prefix a prompt shares with the one before it and reads only the rest. `held`: instead, per prompt, what the
    model read just before it (another stage's prompt: a conversation's first turn), its shared prefix not read
    again. `request`: the run's own request for these calls (the same object, so the cache lookup is the run's
    key). `reply`: the tokens of a reply not cached (what earlier runs measured, lclab.planning.priced), else the
    request's budget."""
    hits = [cached(model, p, request) for p in prompts]
    # A call that an earlier notebook or stage of the plan being made has priced is in the cache when this runs.
    again = [hit is None and priced_before(model, p, request) for p, hit in zip(prompts, hits)]
    lengths = [count_prompt_tokens(model, p) for p in prompts]
    done = [h for h in hits if h is not None]
    reply = request.max_tokens if reply is None else reply
    answered_tokens = sum(h["completion_tokens"] for h in done) + reply * (len(prompts) - len(done))
    # Time is spent on the prompts not cached, at their own lengths (one long prompt costs more than
    # several short ones of the same total), less what the previous call left in the KV cache.
    todo, previous = [], None
    for i, (prompt, n, hit, repeat) in enumerate(zip(prompts, lengths, hits, again)):
        before = held[i] if held is not None else previous if reuse_prefix else None
        if hit is None and not repeat:
            kept = _shared_prefix_tokens(model, before, prompt) if before else 0
            todo.append((n, min(kept, n)))
            previous = prompt
    return [row(notebook, stage, model, len(prompts), len(done) + sum(again), sum(lengths), answered_tokens, todo,
                request)]


def reply_kind(request: Request | None) -> tuple[bool, bool]:
    """(decoded under a JSON grammar, logprobs read after the reply) for a call's request (Request.reply_extras)."""
    return (request or Request()).reply_extras


# What the plan being made has priced so far (None outside one): every exact call, and how many answers to each judged
# question (lclab.planning.priced.planned_judges). A profile's plan keeps one record for all its notebooks.
_scope: dict | None = None


@contextlib.contextmanager
def plan_scope():
    """Plans made inside share one record of what they priced; a scope opened inside another joins it."""
    global _scope
    if _scope is not None:
        yield _scope
        return
    _scope = {"asked": set(), "judged": collections.Counter()}
    try:
        yield _scope
    finally:
        _scope = None


def priced_before(model: str, prompt, request: Request) -> bool:
    """Whether the plan being made has priced this exact call already; records it if not."""
    if _scope is None:
        return False
    key = (model, json.dumps(prompt, sort_keys=True), json.dumps(request.keyed(), sort_keys=True, default=str))
    if key in _scope["asked"]:
        return True
    _scope["asked"].add(key)
    return False


def answers_judged_before(key: tuple) -> int:
    """How many answers to `key` (judge, template, what the prompt knows before the answer) the plan being made
    has priced already; counts one more."""
    if _scope is None:
        return 0
    _scope["judged"][key] += 1
    return _scope["judged"][key] - 1


_priced: set[tuple] = set()  # what the plan being made has priced once for every notebook (a judge's card texts)


def new_plan() -> None:
    """Start a plan of a profile: what earlier plans in this process priced is priced again."""
    _priced.clear()


def priced_once(what: str, model: str, prompts: list) -> list:
    """The prompts of `what` (a judge card) not yet priced by another notebook of the plan being made: a card is
    judged once per judge and kept, so a profile whose notebooks share a judge pays for it once."""
    fresh = [p for p in dict.fromkeys(prompts) if (what, model, p) not in _priced]
    _priced.update((what, model, p) for p in fresh)
    return fresh


def plan_table(rows: list[dict]) -> pd.DataFrame:
    table = pd.DataFrame(rows, columns=COLUMNS)
    if len(table):
        total = {"notebook": "total", "stage": "", "model": ""} | table[COLUMNS[3:]].sum(min_count=1).to_dict()
        table = pd.concat([table, pd.DataFrame([total])], ignore_index=True)
    return table.astype({c: int for c in ("calls", "cached", "prompt_tokens", "completion_tokens")})


def shown_plan(table):
    """The plan table as printed: unknown seconds or cost as "?", never NaN, and a total that says it is partial."""
    out = table.astype({"seconds": object, "cost_usd": object})
    for column in ("seconds", "cost_usd"):
        known = [v for v in table[column].iloc[:-1] if not pd.isna(v)] if len(table) else []
        out[column] = ["?" if pd.isna(v) else f"{v:,.0f}" if abs(v) >= 10 else f"{v:.2f}" for v in table[column]]
        if len(table) and len(known) < len(table) - 1:  # the total row sums the known stages only
            partial = f"{sum(known):,.0f}" if column == "seconds" else f"{sum(known):.2f}"
            out.loc[out.index[-1], column] = f"{partial} + ?"
    return out
