"""Which model a run asks, from a JSON model config (RAG-IFEval's shape; any experiment with a `models` list).

The original benchmark has two runners with two config shapes (a local
transformers model; a served model with `api_base`). Here one config covers
both, plus anything the gateway can reach:

    {"model": "local/qwen2.5-coder-1.5b"}                          embedded llama.cpp
    {"model": "bielik", "api_base": "http://gpu:8000/v1", "threads": 8}   served, OpenAI-compatible
    {"model": "bielik", "api_base": ["http://gpu1:8000/v1", "http://gpu2:8000/v1"]}   replicas, round-robin
    {"model": "/models/Bielik-11B", "dtype": "bfloat16"}           a transformers model directory
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from .retry import RetryPolicy
from .specs import parse_spec


@dataclass(frozen=True)
class ModelConfig:
    spec: str  # the gateway's model spec
    label: str  # the name in tables and logs (never a key or a password)
    max_tokens: int
    temperature: float = 0.0
    threads: int = 1
    retry: RetryPolicy = field(default_factory=RetryPolicy)


_HF_FIELDS = ("dtype", "attn_implementation", "batch_size")
_FIELDS = ("model", "label", "api_base", "max_tokens", "max_new_tokens", "temperature",
           "max_retries", "threads", "sleep_time", *_HF_FIELDS)


# Answer length limit for a model whose config does not set one (RAG-IFEval's `Options.max_tokens` default).
DEFAULT_MAX_TOKENS = 384


def model_config(raw: dict | str, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> ModelConfig:
    """A ModelConfig from the benchmark's JSON fields (local and remote ones alike), or from a spec string.

    Defaults differ from the original runners where those assume a GPU or a
    service: max_tokens from the run's options (`Options.max_tokens`; answers
    here are a few sentences), temperature 0 (greedy, hence repeatable and
    cacheable), dtype float32 and sdpa attention.
    """
    raw = {"model": raw} if isinstance(raw, str) else dict(raw)
    if "vertex_credentials" in raw:
        raise ValueError("model config: vertex_credentials is not supported; reach Vertex AI through "
                         "an OpenAI-compatible endpoint (api_base) instead")
    unknown = sorted(set(raw) - set(_FIELDS))
    if unknown:
        raise ValueError(f"model config: unknown field(s) {unknown}; known: {', '.join(_FIELDS)}")
    model = raw.get("model")
    if not isinstance(model, str) or not model:
        raise ValueError("model config: 'model' (a spec, a .gguf file, a model directory or a served name) is required")
    if "max_tokens" in raw and "max_new_tokens" in raw:
        raise ValueError("model config: give max_tokens or max_new_tokens, not both")
    if raw.get("batch_size", 1) != 1:
        raise ValueError("model config: batch_size must be 1: calls to an in-process model are serialized "
                         "one at a time (use threads for a remote endpoint)")
    api_base = raw.get("api_base")
    if isinstance(api_base, list):  # the benchmark's list of replicas of one served model
        if not api_base or not all(isinstance(u, str) and u.startswith("http") for u in api_base):
            raise ValueError("model config: api_base must be a URL or a non-empty list of URLs")
        api_base = ",".join(api_base)
    elif api_base is not None and not isinstance(api_base, str):
        raise ValueError("model config: api_base must be a URL or a non-empty list of URLs")
    hf = api_base is None and Path(model).expanduser().is_dir()
    if not hf and any(k in raw for k in _HF_FIELDS):
        raise ValueError(f"model config: {[k for k in _HF_FIELDS if k in raw]} apply only to a model directory")
    if api_base:
        spec = f"openai/{model}@{api_base}"
        label = f"{model} @ {parse_spec(spec).public_base_url()}"
    elif hf:
        options = {k: raw[k] for k in ("dtype", "attn_implementation") if k in raw}
        path = Path(model).expanduser().resolve()
        spec = f"hf/{path}" + (f"?{urlencode(sorted(options.items()))}" if options else "")
        label = path.name
    elif model.endswith(".gguf"):
        spec, label = f"local/{model}", Path(model).stem
    elif "/" in model:
        spec, label = model, model.partition("/")[2]
        parse_spec(spec)  # an unknown prefix fails here, with the accepted forms
    else:
        raise ValueError(f"model config: {model!r} is not a model directory, a .gguf file or a spec "
                         "like local/NAME; a served model needs api_base")
    policy = RetryPolicy(max_retries=int(raw.get("max_retries", 5)),
                         base_delay=float(raw.get("sleep_time", 1.0)))
    return ModelConfig(spec, raw.get("label", label), int(raw.get("max_tokens", raw.get("max_new_tokens", default_max_tokens))),
                       float(raw.get("temperature", 0.0)), int(raw.get("threads", 1)), policy)
