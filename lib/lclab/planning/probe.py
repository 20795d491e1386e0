"""This machine's speed for each embedded model and the default embedder, measured once in about a minute.

Before it, a plan prices local calls at a reference machine's probed speeds scaled by this machine's numpy figures
(lclab.planning.machine), a proxy: two 2-core machines of one CPU name read the 0.5B's prompts at 85-95 and about
150 tokens/s, so a plan at any fixed speeds can be off by half before anything else in it is wrong. The probe
measures what the plan's cost model prices, on the threads a run computes with: a prompt of PROMPT_TOKENS tokens
read with nothing reused and DECODE_TOKENS decoded after it (the fastest of REPEATS), the extra a JSON grammar costs
per decoded token, the extra of reading a reply's logprobs, a call's fixed cost and the model's load; for the
embedder, its load and the seconds a passage costs the embed stage. Plans price at these speeds
(lclab.planning.speed) and, once this machine's runs have measured a model since, scale them by the median ratio of
those runs.

    .venv/bin/python -m lclab.planning.probe MODEL ...    (./run_all.sh runs it after set-up; once per machine)
"""

from __future__ import annotations

import json
import math
import os
import sys
import time

from ..models.llama import _llama_cpp_installed
from ..models.llama_engine import quiet_stderr, threads_limited
from ..models.local_models import EMBEDDED_MODELS, assembled
from . import machine, speed

PROMPT_TOKENS = 512  # about a default-profile prompt (300-1,500 tokens); the 1.5B reads it in ~6 s on 2 cores
DECODE_TOKENS = 16
WARM_UP_TOKENS = 16  # read first and dropped: the first evaluation pages the weights in and sizes the buffers
REPEATS = 2  # one 512-token read of the 0.5B measured 122 tokens/s beside other work, 148-160 in quiet probes
# Any text does: a prompt's cost is its length, not its words.
FILLER = ("The probe reads this sentence again and again, so that every run of it costs the same on one machine. ")


def probed(model: str) -> dict | None:
    """The probe's record for `model` on this machine, or None."""
    return speed._probe(model) or None


def unprobeable(model: str) -> str | None:
    """Why `model` cannot be probed here, or None when it can."""
    name = model.removeprefix("local/")
    if not model.startswith("local/") or name not in EMBEDDED_MODELS:
        return "not an embedded model"
    if not _llama_cpp_installed():
        return "llama.cpp is not installed yet (scripts/setup.sh)"
    if assembled(name) is None:
        return "not fetched yet (scripts/setup.sh fetches it)"
    if threads_limited():  # a test worker's share of the cores is not the machine's speed
        return "this process has fewer threads than the machine has cores"
    return None


def probe(model: str) -> dict:
    """Measure the llama.cpp model `model` ("local/<name>") now, keep the result in throughput.json, return it."""
    from ..models.llama import LocalBackend
    from ..models.specs import parse_spec

    if why := unprobeable(model):
        raise RuntimeError(f"cannot probe {model}: {why}")
    started = time.perf_counter()
    backend = LocalBackend(parse_spec(model))
    llama, lock = backend._llama()
    load = time.perf_counter() - started  # a run's first call pays it (0 where this process had it loaded)
    with lock:
        tokens = llama.tokenize(FILLER.encode() * (4 * PROMPT_TOKENS // 20), add_bos=False)
        need = WARM_UP_TOKENS + PROMPT_TOKENS + DECODE_TOKENS
        if len(tokens) < need:
            raise RuntimeError(f"the probe's text gave {len(tokens)} tokens, fewer than {need}")
        llama.reset()
        llama.eval(tokens[:WARM_UP_TOKENS])
        prefill = decode = math.inf
        for _ in range(REPEATS):  # the fastest of each: other work on the cores only ever slows a measurement
            llama.reset()
            t = time.perf_counter()
            llama.eval(tokens[:PROMPT_TOKENS])
            prefill = min(prefill, time.perf_counter() - t)
            t = time.perf_counter()
            for token in tokens[PROMPT_TOKENS:PROMPT_TOKENS + DECODE_TOKENS]:  # one token a step, as a reply decodes
                llama.eval([token])
            decode = min(decode, time.perf_counter() - t)
        grammar = _grammar_extra(llama)
        scoring = _scoring_extra(backend, llama)
        overhead = _call_overhead(llama)
        llama.reset()
    *_, attention = speed.speeds(model, probed=False)
    default = speed._predicted(model, PROMPT_TOKENS, PROMPT_TOKENS ** 2, DECODE_TOKENS, 0, probed=False)
    result = {"prefill_s_per_token": prefill / (PROMPT_TOKENS + PROMPT_TOKENS ** 2 / attention),  # as plans price it
              "decode_s_per_token": decode / DECODE_TOKENS,
              "grammar_s_per_token": grammar,
              "logprobs_s_per_token": scoring,
              "call_s": overhead,
              "load_s": round(load, 2),
              "prompt_tokens_per_s": round(PROMPT_TOKENS / prefill, 1),
              "decode_tokens_per_s": round(DECODE_TOKENS / decode, 1),
              # against the speeds the plan had before (the reference's, scaled by the numpy figures): how far off
              # the proxy was on this machine, for the record
              "factor": round((prefill + decode) / default, 4),
              "seconds": round(time.perf_counter() - started, 1)}
    _keep(model, result)
    return result


# A reply decoded under a JSON response format (judges' verdicts, extracted claims, NLI labels) checks every
# candidate token against the grammar: on 2 cores that doubled the 0.5B's time per decoded token (27 -> 54 ms).
GRAMMAR_SCHEMA = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}
# Alternatives read per reply token: what the judges and 05 ask for (lclab.scoring.logprob.TOP_LOGPROBS; planning sits
# below scoring, so the figure is written here).
SCORED_ALTERNATIVES = 20
GRAMMAR_PROMPT = "Write a long note about reading long documents, as JSON with one field, note."


def _grammar_extra(llama) -> float:
    """Seconds per decoded token that a JSON grammar adds: the same short prompt decoded free and constrained
    (its prefix kept in the KV cache between the calls, so only decoding differs)."""
    from llama_cpp import LlamaGrammar

    grammar = LlamaGrammar.from_json_schema(json.dumps(GRAMMAR_SCHEMA), verbose=False)
    per_token = {}
    for name, constraint in (("warm", None), *(("free", None), ("json", grammar)) * REPEATS):
        t = time.perf_counter()
        out = llama.create_completion(GRAMMAR_PROMPT, max_tokens=DECODE_TOKENS, temperature=0.0, grammar=constraint)
        took = (time.perf_counter() - t) / max(1, out["usage"]["completion_tokens"])
        per_token[name] = min(took, per_token.get(name, math.inf))
    return max(0.0, per_token["json"] - per_token["free"])


def _scoring_extra(backend, llama) -> float:
    """Seconds per reply token that reading its logprobs adds: a reply longer than one token is generated, then
    scored in one batch over its positions, each position's top alternatives read from the vocabulary's logits
    (lclab.models.llama.LocalBackend._score_reply; a judge's verdict, 05's NLI labels)."""
    messages = [{"role": "user", "content": GRAMMAR_PROMPT}]
    prompt = backend._prompt_tokens(llama, messages)
    out = llama.create_chat_completion(messages=messages, max_tokens=DECODE_TOKENS, temperature=0.0)
    text, best, scored = out["choices"][0]["message"]["content"] or "", math.inf, []
    for _ in range(REPEATS):
        t = time.perf_counter()
        scored = backend._score_reply(llama, prompt, text, SCORED_ALTERNATIVES)
        best = min(best, time.perf_counter() - t)
    return best / max(1, len(scored))


def _call_overhead(llama) -> float:
    """Seconds a chat call costs besides reading and decoding: its template applied, its prompt tokenized and
    matched against the KV cache, one token sampled (the shortest call, asked twice: the second reads nothing)."""
    messages = [{"role": "user", "content": "Say yes."}]
    llama.create_chat_completion(messages=messages, max_tokens=1, temperature=0.0)
    t = time.perf_counter()
    llama.create_chat_completion(messages=messages, max_tokens=1, temperature=0.0)
    return time.perf_counter() - t


def _keep(model: str, result: dict) -> None:
    def keep(entry: dict) -> None:
        entry["probe"] = result
        # Each run's ratio was taken against the speeds plans used when it ended: from now on those are the
        # probe's, so ratios against the reference's speeds no longer scale a plan (kept aside, for the record).
        for kind in ("runs", "priced_runs"):
            if kind in entry:
                entry[f"{kind}_before_probe"] = entry.pop(kind)

    speed.update_record(model, keep)


EMBED_TEXTS = 64  # passage-sized texts (~150 words, what 02, 03 and 06 index), embedded from an empty cache
EMBED_TEXT = ("The probe embeds this passage about reading long documents and finding what matters in them, "
              "written out again and again to the length of a chunk that a run indexes for retrieval. ") * 5


def probe_embedder(spec: str) -> dict:
    """Measure a local embedder now: its load, and seconds per text through the lab's own embed path (the disk
    cache's writes included, as a run's embed stage counts them); keep the result in throughput.json."""
    import tempfile

    from ..models import embeddings

    started = time.perf_counter()
    embedder = embeddings.get_embedder(spec)
    with quiet_stderr():  # transformers draws a progress bar of the weights it loads; an exception still says why
        embedder.model  # noqa: B018  (its load: torch and sentence-transformers imported, the weights read)
    load = time.perf_counter() - started
    best = math.inf
    saved = os.environ.get("LCLAB_EMBEDDING_CACHE_DIR")
    try:
        for attempt in range(REPEATS):  # the fastest: other work on the cores only ever slows a measurement
            os.environ["LCLAB_EMBEDDING_CACHE_DIR"] = tempfile.mkdtemp(prefix="lclab-probe-")  # nothing cached
            texts = [f"{attempt}-{i}: {EMBED_TEXT}" for i in range(EMBED_TEXTS)]
            t = time.perf_counter()
            embedder.embed(texts)
            best = min(best, time.perf_counter() - t)
    finally:
        if saved is None:
            os.environ.pop("LCLAB_EMBEDDING_CACHE_DIR", None)
        else:
            os.environ["LCLAB_EMBEDDING_CACHE_DIR"] = saved
    result = {"embed_s_per_text": best / EMBED_TEXTS, "load_s": round(load, 2),
              "seconds": round(time.perf_counter() - started, 1)}
    _keep(spec, result)
    return result


def _is_embedder(spec: str) -> bool:
    from ..models.embeddings import DEFAULT_EMBEDDER

    return spec == DEFAULT_EMBEDDER


def main(models: list[str]) -> int:
    """Probe each model not probed on this machine yet (llama.cpp models, and the default embedder); one line each.
    A probe that fails says so and leaves that model at the reference's speeds."""
    machine.ensure()  # the numpy figures too, so that each probe's factor says how far off they priced it
    for model in (m if m.startswith("local/") or m.endswith(".gguf") else f"local/{m}" for m in models):
        if probed(model) or (not _is_embedder(model) and unprobeable(model)):
            continue
        try:
            result = probe_embedder(model) if _is_embedder(model) else probe(model)
        except Exception as err:  # noqa: BLE001  (a plan without the probe still works: the reference's speeds)
            print(f"speed probe: {model} not measured ({type(err).__name__}: {err}); plans keep the reference's speeds",
                  file=sys.stderr)
            continue
        if _is_embedder(model):
            print(f"speed probe: {model} embeds a passage in {1000 * result['embed_s_per_text']:.0f} ms here "
                  f"(loaded in {result['load_s']:.0f} s; once per machine)", flush=True)
            continue
        print(f"speed probe: {model} reads {result['prompt_tokens_per_s']:.0f} prompt tokens/s and decodes "
              f"{result['decode_tokens_per_s']:.0f}/s here, +{1000 * result['grammar_s_per_token']:.0f} ms a token "
              f"under a JSON grammar, +{1000 * result['logprobs_s_per_token']:.0f} ms with logprobs "
              f"({result['factor']:.2f} x the time the numpy figures predicted; {result['seconds']:.0f} s, once per "
              "machine)",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
