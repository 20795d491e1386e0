"""Model spec strings: which backend, which model, which endpoint.

    local/qwen2.5-coder-1.5b       embedded model assembled from PyPI parts
    local/path/to/any.gguf         any GGUF file, run in-process by llama.cpp
    openai/gpt-4o-mini             OpenAI, or OPENAI_BASE_URL when it is set
    ollama/llama3.1                a named endpoint from params/endpoints.yaml
    openai/NAME@http://host:8000/v1  any OpenAI-compatible endpoint given by URL
                                   (key from API_KEY, else OPENAI_API_KEY)
    openai/NAME@http://a:8000/v1,http://b:8000/v1
                                   several replicas of one served model (also a list
                                   `base_url: [...]` in params/endpoints.yaml)
    hf/path/to/model_dir?dtype=float32&attn_implementation=sdpa
                                   a Hugging Face model directory run by transformers
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import yaml

from ..paths import PARAMS
from .errors import MissingAPIKeyError


@dataclass(frozen=True)
class ModelSpec:
    raw: str
    backend: str  # "local" or "openai" (any OpenAI-compatible endpoint)
    model: str  # embedded name or .gguf path for local; the served model name otherwise
    base_url: str | None = None  # None means the official OpenAI endpoint; replicas are comma-separated
    api_key_env: str | None = None  # the variable holding the key, if one is needed
    options: tuple[tuple[str, str], ...] = ()  # load options of an hf/ model (dtype, ...)

    def api_key(self) -> str:
        """The key from the environment; a placeholder where the endpoint needs none."""
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            return key
        if self.base_url is None:
            raise MissingAPIKeyError(
                f"model {self.raw!r} needs an API key: export {self.api_key_env or 'OPENAI_API_KEY'}=... "
                "in the shell that runs the notebooks (keys are never notebook parameters), "
                "or set OPENAI_BASE_URL to use an OpenAI-compatible server instead"
            )
        return "not-needed"  # local servers accept any key, but the client insists on one

    def auth_conflict(self) -> str | None:
        """Why this endpoint's credentials cannot all be sent: a user:password in its URL (HTTP basic auth) and a
        key in the environment (a bearer token) would both go in the one Authorization header, and the client
        sends the URL's and drops the key without a word. Refused, naming both, rather than guessed."""
        key_env = self.api_key_env
        if self.base_url is None or not key_env or not os.environ.get(key_env):
            return None
        for url in self.base_urls():
            if urlsplit(url).username:
                return (f"base URL {public_url(url)!r} carries a user:password (sent as HTTP basic auth) and "
                        f"${key_env} is set (a bearer key): one Authorization header cannot carry both; drop the "
                        f"user:password from the URL or unset {key_env}")
        return None

    def base_urls(self) -> list[str]:
        """Every replica's base URL as given (credentials included): the client needs them."""
        if self.base_url is None:
            return ["https://api.openai.com/v1"]
        return [u.strip() for u in self.base_url.split(",") if u.strip()]

    def public_base_url(self) -> str:
        """The base URL(s) without any user:password part, safe to log and to key the cache by."""
        return ",".join(public_url(u) for u in self.base_urls())


# Every query value is hidden, not only those under credential-looking names: Azure Functions' `code=`, `pwd=`,
# `jwt=` are keys too, and no list of names is ever complete. The names stay (they say what was configured).
HIDDEN = "REDACTED"
# redacted spec -> the spec as given, handed from ./run_all.sh to the notebooks' kernels through the environment,
# so that a notebook's parameters (which papermill writes into the executed copy) never hold a credential.
SECRETS_ENV = "LCLAB_SPEC_CREDENTIALS"


def _host_port(parts) -> str:
    """host[:port] of a split URL: what is left of its netloc without user:password (IPv6 hosts bracketed)."""
    host = parts.hostname or ""
    return (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")


def redact_url(url: str) -> str:
    """The URL with its user:password part dropped and every query value replaced by REDACTED."""
    parts = urlsplit(url)
    netloc = _host_port(parts)
    query = [(k, HIDDEN) for k, _ in parse_qsl(parts.query, keep_blank_values=True)]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query, safe=HIDDEN), parts.fragment))


def redact(spec: str) -> str:
    """A model spec safe to record: every URL in it redacted (`redact_url`); other specs unchanged."""
    if "://" not in spec:
        return spec
    head, at, urls = spec.partition("@") if "@http" in spec else ("", "", spec)
    try:
        return head + at + ",".join(redact_url(u.strip()) for u in urls.split(","))
    except ValueError:  # not a URL that parses (a bad port...): hide everything after the scheme
        return head + at + urls.split("://")[0] + "://" + HIDDEN


def hide_credentials(spec: str) -> str:
    """The redacted spec, remembered (in this process's environment, inherited by the notebooks it starts) as
    standing for the spec as given, which only the gateway's client reads back."""
    hidden = redact(spec)
    if hidden != spec:
        known = json.loads(os.environ.get(SECRETS_ENV) or "{}")
        os.environ[SECRETS_ENV] = json.dumps({**known, hidden: spec})
    return hidden


def _with_credentials(spec: str) -> str:
    """The spec as given for a redacted one: looked up whole, else URL by URL (a model config's `api_base` is
    hidden on its own, then joined into a spec by `models.configs`)."""
    known = json.loads(os.environ.get(SECRETS_ENV) or "{}")
    if spec in known:
        return known[spec]
    head, at, urls = spec.partition("@")
    if not at:
        return spec
    return head + at + ",".join(known.get(u.strip(), u.strip()) for u in urls.split(","))


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\",]+")


def scrub(text: str) -> str:
    """A message with every URL in it redacted (`redact_url`): for errors that quote a value as given."""

    def one(match: re.Match) -> str:
        try:
            return redact_url(match.group(0))
        except ValueError:  # not a URL that parses (a bad port...): hide everything after the scheme
            return match.group(0).split("://")[0] + "://" + HIDDEN

    return _URL.sub(one, text)


def public_url(url: str) -> str:
    """A URL without its user:password part, query or fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, _host_port(parts), parts.path.rstrip("/"), "", ""))


def _endpoints() -> dict:
    path = Path(os.environ.get("LCLAB_ENDPOINTS", PARAMS / "endpoints.yaml"))
    return yaml.safe_load(path.read_text()) if path.exists() else {}


def parse_spec(spec: str) -> ModelSpec:
    """Parse `backend/model`; raise ValueError naming the accepted forms."""
    prefix, sep, rest = spec.partition("/")
    if not sep or not rest:
        raise ValueError(
            f"model spec {spec!r} must look like local/NAME, hf/MODEL_DIR, openai/MODEL or PROFILE/MODEL"
        )
    if prefix == "local":
        return ModelSpec(spec, "local", rest)
    if prefix == "fake":  # the deterministic fake model, for tests only (models.fake): fake/NAME?latency=0.5
        name, _, query = rest.partition("?")
        return ModelSpec(spec, "fake", name, options=tuple(sorted(parse_qsl(query, strict_parsing=bool(query)))))
    if prefix == "hf":
        path, _, query = rest.partition("?")
        return ModelSpec(spec, "hf", path, options=tuple(sorted(parse_qsl(query, strict_parsing=bool(query)))))
    scheme = re.search(r"@([A-Za-z][A-Za-z0-9+.-]*)://", rest)
    if prefix == "openai" and scheme and scheme.group(1).lower() not in ("http", "https"):
        raise ValueError(f"model spec {scrub(spec)!r}: the endpoint must be an http(s):// URL, "
                         f"not {scheme.group(1)}://")
    if prefix == "openai" and "@http" in rest:
        # An endpoint named by URL (a model config's api_base). API_KEY is the
        # variable RAG-IFEval's runners read; OPENAI_API_KEY the usual one. A spec recorded without its
        # credentials (hide_credentials) gets them back here, for the client only: `raw` stays redacted.
        model, _, base_url = _with_credentials(spec).partition("/")[2].partition("@")
        for url in base_url.split(","):
            try:
                urlsplit(url.strip())  # a broken IPv6 host raises here, not deep in a run (ports: params.py)
            except ValueError as err:
                raise ValueError(f"model spec {scrub(spec)!r}: the endpoint URL is malformed ({err})") from None
        key_env = "API_KEY" if os.environ.get("API_KEY") else "OPENAI_API_KEY"
        return ModelSpec(spec, "openai", model, base_url, key_env)
    if prefix == "openai":
        return ModelSpec(spec, "openai", rest, os.environ.get("OPENAI_BASE_URL") or None, "OPENAI_API_KEY")
    endpoints = _endpoints()
    if prefix not in endpoints:
        raise ValueError(
            f"model spec {spec!r}: {prefix!r} is neither 'local', 'openai' nor an endpoint in "
            f"params/endpoints.yaml ({', '.join(sorted(endpoints)) or 'none defined'})"
        )
    entry = endpoints[prefix]
    base_url = entry.get("base_url") or os.environ.get(entry.get("base_url_env", ""), "")
    if isinstance(base_url, list):  # replicas of one served model
        base_url = ",".join(base_url)
    if not base_url:
        raise ValueError(f"endpoint {prefix!r} needs its base URL in ${entry.get('base_url_env')}")
    return ModelSpec(spec, "openai", rest, base_url, entry.get("api_key_env"))
