"""This machine's speed for each local model: what a plan prices a call at.

Three sources, the later ones first where they exist: the reference machine's speeds (reference_speeds.json: its
speed probe, and its numpy figures), scaled by this machine's numpy figures (lclab.planning.machine: measured in a
few seconds, before set-up has built anything to probe); the speed probe ./run_all.sh runs once per machine after
set-up (lclab.planning.probe: prefill, decode, the extras a JSON grammar and a reply's logprobs cost per token, a
call's fixed cost, loads, an embedded text); and the record of every run's measured model time (throughput.json
beside the models, updated at the end of every run), whose median ratio to the prediction scales a plan; for
the embedder, the median of the runs' seconds per text embedded prices it instead of the probe.
"""

from __future__ import annotations

import functools
import json
import math
import os
import statistics
from pathlib import Path

from ..models.accounting import PRICED
from ..models.llama_engine import cpu_build
from ..models.local_models import cpu_name, model_dir

# The reference machine's probe of each model and its numpy figures (benchmarks/reference_speeds.py writes it).
REFERENCE = json.loads(Path(__file__).with_name("reference_speeds.json").read_text())
# The prompt length at which attention doubles a prompt token's cost: reading a prompt of n tokens takes
# prefill * n * (1 + n / attention), so one 32k prompt costs far more than thirty-two 1k prompts. The 0.5B's is
# fitted on prompt-eval times at 4k, 8k, 16k and 32k tokens with flash attention, the setting long windows use
# (benchmarks/kv_cache_settings.py; OLS, R^2 0.9999: 7,886 tokens; without flash attention 6,948); the 1.5B's is
# scaled from it by parameters per layer over width (its measured calls stop at 2k tokens, too short to fit).
ATTENTION_TOKENS = {"qwen2.5-coder-0.5b": 7_900, "qwen2.5-coder-1.5b": 14_400}
# (prefill, decode, per-call overhead, attention length) for a model the reference did not probe (a .gguf path).
UNKNOWN_LOCAL = (1 / 80, 1 / 8, 0.5, 12_000)
# (prefill, decode, per-call overhead, attention length) of the reference machine, per embedded model.
DEFAULT_SPEED = {m.removeprefix("local/"): (p["prefill_s_per_token"], p["decode_s_per_token"], p["call_s"],
                                            ATTENTION_TOKENS[m.removeprefix("local/")])
                 for m, p in REFERENCE["models"].items() if m.removeprefix("local/") in ATTENTION_TOKENS}
# How each probed speed scales with this machine's numpy figures (lclab.planning.machine): {figure: share of the
# time}. Loads, mostly reading files, are not scaled. The reference machine's first core alone, one thread, is a
# second machine to fit and check this on (benchmarks/reference_speeds.py --one-core): there the matrix products
# on every core ran 2.0x slower and the memory copy no slower. Prompt reading went 1.90x (0.5B) and 2.05x (1.5B)
# slower: compute. Decoding went 1.57x and 1.44x slower (1.69x and 1.63x in an earlier try): two thirds compute,
# one third memory, fitted on the 0.5B's first try. Reading a reply's logprobs, a batched evaluation and then a
# search of the vocabulary on one thread, 1.70x and 1.90x (1.55x, 1.84x): two thirds and one third. A grammar's
# check of each token runs on one thread (0.98x, 0.92x).
SCALED_BY = {"prefill_s_per_token": {"gflops": 1.0}, "embed_s_per_text": {"gflops": 1.0},
             "decode_s_per_token": {"gflops": 2 / 3, "gbps": 1 / 3},
             "logprobs_s_per_token": {"gflops": 2 / 3, "gflops_1": 1 / 3},
             "grammar_s_per_token": {"gflops_1": 1.0}, "call_s": {"gflops_1": 1.0}}
# A run's model time over its plan at probed speeds, before this machine has measured a run of its own: a probe's
# fastest-of-two short reads are faster than a notebook's long stream of calls, and a notebook spends time outside
# its model calls that the plan does not itemize. Two cold default runs on the reference machine took 1.06x and
# 1.02x their plans at the reference's speeds (the median of three probes) in total (benchmarks/plan_vs_run.py,
# 2026-11-27; fitted on both, docs/benchmarks.md).
SUSTAINED = 1.04
PROXY_KEY = "machine proxy"  # this machine's numpy figures in throughput.json, beside its models' records


def _machine() -> str:
    """What throughput.json names this machine by: its CPU and cores, and the llama.cpp build where it is not the
    AVX2 one (on one Xeon the AVX-512 build read prompts 1.5x as fast: a home rebuilt for it probes again)."""
    build = cpu_build()
    return f"{cpu_name()} x{os.cpu_count()}" + ("" if build == "avx2" else f" ({build} build)")


def _throughput_file() -> Path:
    return model_dir() / "throughput.json"


def record_throughput(model: str, prompt_tokens: int, completion_tokens: int, calls: int, seconds: float,
                      priced: dict | None = None) -> None:
    """Add a run's measured model time to this machine's record for the model (what plans estimate from).
    `priced` (the ledger's, lclab.models.accounting.PRICED): the sum of each prompt's tokens squared (what attention
    costs), the tokens read after each call's kept prefix and their squares, the reply tokens decoded under a JSON
    grammar or scored for logprobs; any left out: as if the calls were equal, read whole, with no extras."""
    if not calls or seconds <= 0 or not model.startswith("local/"):
        return
    priced = priced or {}
    if set(priced) - set(PRICED):
        raise KeyError(f"record_throughput: unknown priced figure(s) {sorted(set(priced) - set(PRICED))}")
    prompt_tokens_sq = priced.get("prompt_tokens_sq") or _equal_lengths(prompt_tokens, calls)
    read = priced.get("read_prompt_tokens", prompt_tokens)
    read_sq = priced.get("read_prompt_tokens_sq", prompt_tokens_sq)
    grammar_tokens, scored_tokens = priced.get("grammar_tokens", 0), priced.get("scored_tokens", 0)

    def add(entry: dict) -> None:
        if "prompt_tokens_sq" not in entry:  # a record from before lengths were kept: as if its calls were equal
            entry["prompt_tokens_sq"] = _equal_lengths(entry["prompt_tokens"], entry["calls"])
        for k, v in (("prompt_tokens", prompt_tokens), ("completion_tokens", completion_tokens), ("calls", calls),
                     ("seconds", seconds), ("prompt_tokens_sq", prompt_tokens_sq)):
            entry[k] += v
        # Each run's measured time over what a plan's pricing predicts for the calls it made (the same kept
        # prefixes and extras): plans scale by the median of these, so a run made while other work shared the
        # cores (a ratio several times the rest) does not slow every later plan, as it would in the totals above.
        # "runs" held ratios to whole prompts without extras, which a plan that prices both counted twice; read
        # only until this machine has a ratio of the new kind.
        predicted = (_predicted(model, read, read_sq, completion_tokens, calls)
                     + grammar_tokens * extra_seconds(model, constrained=True, scored=False)
                     + scored_tokens * extra_seconds(model, constrained=False, scored=True))
        if predicted > 0:
            entry["priced_runs"] = [*entry.get("priced_runs", []), round(seconds / predicted, 4)][-MAX_RUNS:]

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
    """(prefill, decode, overhead, attention) of `model`: as this machine's speed probe measured them
    (lclab.planning.probe), else (or with `probed` False) the reference machine's scaled by this machine's numpy
    figures."""
    name = model.removeprefix("local/")
    prefill, decode, overhead, attention = DEFAULT_SPEED.get(name, UNKNOWN_LOCAL)
    priced = _priced(model, probed)
    return (priced.get("prefill_s_per_token", prefill), priced.get("decode_s_per_token", decode),
            priced.get("call_s", overhead), attention)


MIN_EMBEDDED = 32  # texts a run's embed stage must make for its speed to be kept: fewer are a batch's fixed cost


def record_embedding(embedder: str, texts: int, seconds: float) -> None:
    """Add a run's embed stage to this machine's record for `embedder`: its seconds per text embedded (encoding
    and the cache's writes, not the load: lclab.models.embeddings), the last MAX_RUNS runs'."""
    if texts < MIN_EMBEDDED or seconds <= 0 or not embedder.startswith("local/") or "," in embedder:
        return
    update_record(embedder, lambda entry: entry.update(
        embed_runs=[*entry.get("embed_runs", []), round(seconds / texts, 5)][-MAX_RUNS:]))


def record_embeddings(stages) -> None:
    """Add each embed stage of a run's accounting table (rows: its embedder, texts, model_s) to the record."""
    for stage in stages.itertuples():
        record_embedding(str(stage.model), int(stage.calls), float(stage.model_s))


def embed_seconds(embedder: str, declared: float) -> float:
    """Seconds a text costs a run's embed stage (embed_basis)."""
    return embed_basis(embedder, declared)[0]


def embed_basis(embedder: str, declared: float) -> tuple[float, str]:
    """(seconds a text costs a run's embed stage, which figure that is): the median of this machine's runs inside
    notebooks ("measured in N runs"), else its probe ("probe": the fastest of two tries in a process of its own,
    faster than notebooks ran, lclab.models.embeddings says why), else the reference machine's scaled by this
    machine's numpy figures ("reference"), else `declared` ("declared")."""
    if runs := _entry(embedder).get("embed_runs"):
        return statistics.median(runs), f"measured in {len(runs)} run{'' if len(runs) == 1 else 's'}"
    if "embed_s_per_text" in (probe := _probe(embedder)):
        return probe["embed_s_per_text"], "probe"
    if "embed_s_per_text" in (reference := _priced(embedder, probed=False)):
        return reference["embed_s_per_text"], "reference"
    return declared, "declared"


def load_seconds(model: str, declared: float) -> float:
    """Seconds a run's first call to `model` spends loading it: as probed, else `declared`."""
    return _priced(model).get("load_s", declared)


def extra_seconds(model: str, constrained: bool, scored: bool) -> float:
    """Seconds a reply token costs besides decoding: under a JSON grammar (`constrained`), and with its logprobs
    read after it (`scored`); as probed, else none."""
    priced = _priced(model)
    return (priced.get("grammar_s_per_token", 0.0) if constrained else 0.0) \
        + (priced.get("logprobs_s_per_token", 0.0) if scored else 0.0)


def _priced(model: str, probed: bool = True) -> dict:
    """The probe record a plan prices `model` at: this machine's (with `probed`), else the reference machine's
    with each speed scaled by this machine's numpy figure over the reference's ({} for a model it did not probe,
    whose defaults are then scaled in the same way)."""
    if probed and (probe := _probe(model)):
        return probe
    ratios = proxy_ratios()
    reference = REFERENCE["models"].get(model)
    if reference is None:
        prefill, decode, overhead, _ = UNKNOWN_LOCAL
        reference = {"prefill_s_per_token": prefill, "decode_s_per_token": decode, "call_s": overhead}
    return {k: v * _scale(k, ratios) if isinstance(v, float) else v for k, v in reference.items()}


def _scale(speed: str, ratios: dict) -> float:
    """How many times the reference's time `speed` takes here: its shares, each scaled by its figure's ratio."""
    shares = SCALED_BY.get(speed)
    if not shares or not ratios:
        return 1.0
    return sum(share * ratios.get(figure, 1.0) for figure, share in shares.items())


def proxy_ratios() -> dict:
    """{figure: how many times slower than the reference this machine is by it}, {} if it has none measured."""
    here, there = _entry(PROXY_KEY), REFERENCE["proxy"]
    return {k: there[k] / here[k] for k in there if here.get(k)}


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
    comes from): the median ratio of this machine's runs (since its probe, if it has one), else SUSTAINED on the
    probed speeds or on the reference machine's speeds scaled by this machine's numpy figures."""
    seen = _entry(model)
    if runs := seen.get("embed_runs"):
        probed = (seen.get("probe") or {}).get("embed_s_per_text")
        probe = f"; the probe's {1000 * probed:.0f} ms" if probed else ""
        return 1.0, (f"median of {len(runs)} runs' embed stages measured here "
                     f"({1000 * statistics.median(runs):.0f} ms a text{probe})")
    basis = "the probed speeds" if seen.get("probe") else "the reference's speeds"
    if ratios := seen.get("priced_runs") or seen.get("runs"):
        factor = statistics.median(ratios)
        return factor, f"median of {len(ratios)} runs measured here ({factor:.2f} x {basis})"
    probe = seen.get("probe")
    if probe and "embed_s_per_text" in probe:
        return 1.0, f"this machine's speed probe ({1000 * probe['embed_s_per_text']:.0f} ms a passage)"
    if probe:
        return SUSTAINED, (f"this machine's speed probe ({probe['prompt_tokens_per_s']:.0f} prompt tokens/s, "
                           f"{probe['decode_tokens_per_s']:.0f} decoded/s) x{SUSTAINED} for a long run; no run "
                           "measured since")
    if "embed_s_per_text" in REFERENCE["models"].get(model, {}):
        return 1.0, reference_basis(embedder=True)
    return SUSTAINED, reference_basis()


def reference_basis(embedder: bool = False) -> str:
    """Where a plan's speeds come from before this machine's probe: the reference machine's, scaled or not."""
    there = f"a reference machine's probed speeds ({REFERENCE['machine']})"
    ratios = proxy_ratios()
    if not ratios:
        scaled = f"{there}, unscaled (this machine's numpy figures are not measured)"
    elif embedder:
        scaled = f"{there} x{_scale('embed_s_per_text', ratios):.2f} by this machine's numpy figures"
    else:
        scaled = (f"{there} scaled by this machine's numpy figures (prefill "
                  f"x{_scale('prefill_s_per_token', ratios):.2f}, decode x{_scale('decode_s_per_token', ratios):.2f})")
    return f"{scaled}{'' if embedder else f', x{SUSTAINED} for a long run'}; set-up probes the models themselves"


def _equal_lengths(prompt_tokens: float, calls: float) -> float:
    """Sum of squared prompt lengths when every call's prompt has the same length."""
    return prompt_tokens ** 2 / calls if calls else 0.0


def seconds_for(model: str, prompt_tokens: float, completion_tokens: float, calls: float,
                prompt_tokens_sq: float | None = None, constrained: bool = False, scored: bool = False) -> float:
    """Estimated model seconds on this machine: its probed speeds (else the reference's, scaled), scaled by what
    its runs measured.

    `prompt_tokens_sq` is the sum over calls of each prompt's length squared; without it the calls are
    taken to be of equal length. `constrained`: the replies are decoded under a JSON grammar (a response
    format), `scored`: their logprobs are read after them (longer than one token); each costs a probed machine
    its measured extra per reply token."""
    if not model.startswith("local/"):
        return math.nan
    if prompt_tokens_sq is None:
        prompt_tokens_sq = _equal_lengths(prompt_tokens, calls)
    extra = completion_tokens * extra_seconds(model, constrained, scored)
    return (_predicted(model, prompt_tokens, prompt_tokens_sq, completion_tokens, calls) + extra) \
        * speed_factor(model)[0]
