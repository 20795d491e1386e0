"""Notebook parameters, typed and ranged, checked before anything runs.

A notebook's parameters cell declares each parameter once: its default gives
its type, and a short rule in brackets at the start of its comment gives what
is allowed:

    n_qa = 8  # (at least 1) QA pairs to use, in file order
    depths = [0, 25, 50, 75, 100]  # (0 to 100) answer positions, % of the way through
    context_tokens = [1500]  # (tokens) prompt budgets, each within the model's window
    model = "local/qwen2.5-coder-1.5b"  # (model) answering model spec
    judge_model = ""  # (model or "") judge model spec; "" means the answering model judges
    order = "premise"  # (one of: premise, shuffled) ...

Rules (in words: papermill drops a parameter whose comment holds an "="):
`at least N`, `more than N`, `A to B` (inclusive), `tokens` (a positive budget within the
local model's context window), `model`, `model or ""`, `models` (a list of
specs or RAG-IFEval model-config objects), `one of: a, b`. A list applies its
rule to every element and may not be empty unless its default is. A value of
the wrong type, out of range, an unknown model spec or an empty list is refused
with one line naming the notebook, the parameter, the value and what is allowed.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

_RULE = re.compile(r"^\(([^)]*)\)\s*")


class ParameterError(ValueError):
    """A parameter value a notebook does not allow; the message is one line."""


def rule_of(help_text: str) -> str:
    """The bracketed rule at the start of a parameter's comment ('' when there is none)."""
    match = _RULE.match(help_text or "")
    return match.group(1).strip() if match else ""


def literal(source: str):
    """A default as papermill reports it (source text) as a Python value."""
    try:
        return ast.literal_eval(source)
    except (ValueError, SyntaxError):
        return source.strip("\"'")


def _type_name(value) -> str:
    return type(value).__name__


def _same_type(value, default) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


def local_window() -> int:
    """The context window the embedded llama.cpp models are given (LCLAB_N_CTX)."""
    return int(os.environ.get("LCLAB_N_CTX", "8192"))


def check_model_spec(spec) -> str | None:
    """Why a model spec (or a RAG-IFEval model-config object) cannot be used, without loading anything."""
    from ..models.local_models import EMBEDDED_MODELS
    from ..models.specs import parse_spec

    if isinstance(spec, dict):
        from ..models.configs import model_config

        try:
            model_config(spec)
        except ValueError as err:
            return str(err)
        return None
    if not isinstance(spec, str) or not spec:
        return "a model spec such as local/qwen2.5-coder-1.5b or openai/gpt-4o-mini"
    try:
        parsed = parse_spec(spec)
    except ValueError as err:
        return str(err)
    if parsed.backend == "local" and parsed.model not in EMBEDDED_MODELS:
        path = Path(parsed.model).expanduser()
        if path.suffix != ".gguf" or not path.is_file():
            return (f"unknown local model {parsed.model!r}: use one of {sorted(EMBEDDED_MODELS)} "
                    "or a path to an existing .gguf file")
    if parsed.backend in ("local", "hf", "fake"):
        return None
    return _served_problem(parsed)


def _served_problem(parsed) -> str | None:
    """Why a served model's URL or key cannot work, before any call: every call would fail alike."""
    from urllib.parse import urlsplit

    from ..models.errors import MissingAPIKeyError

    for url in parsed.base_urls() if parsed.base_url is not None else []:
        parts = urlsplit(url)
        public = parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]).geturl()  # never print a password
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return f"base URL {public!r} is not an http(s)://host[:port]/... URL"
        try:
            port = parts.port
        except ValueError:
            return f"base URL {public!r} has a port outside 1-65535"
        if not parts.hostname:
            return f"base URL {public!r} names no host"
        if port == 0:
            return f"base URL {public!r} has port 0"
    if conflict := parsed.auth_conflict():
        return conflict
    try:
        parsed.api_key()
    except MissingAPIKeyError as err:
        return str(err)
    return None


def _check_one(value, rule: str, model) -> str | None:
    """Why one value breaks the rule (None when it keeps it); `model` is the notebook's answering model."""
    if not rule or rule == "any":
        return None
    if rule in ("model", "models", 'model or ""'):
        if rule == 'model or ""' and value == "":
            return None
        problem = check_model_spec(value)
        return problem and f"a usable model spec ({problem})"
    if rule.startswith("one of:"):
        allowed = [a.strip() for a in rule.removeprefix("one of:").split(",")]
        return None if str(value) in allowed else f"one of {', '.join(allowed)}"
    if rule == "tokens":
        if value < 1:
            return "a positive number of tokens"
        # A served model's window is the server's business (it refuses an overlong prompt by itself).
        local = isinstance(model, str) and model.startswith("local/")
        window = local_window()
        return None if not local or value <= window else (
            f"at most the local context window of {model}, {window} tokens "
            "(raise LCLAB_N_CTX, up to the Qwen models' 32768)")
    bound = re.fullmatch(r"(at least|more than) (-?[\d.]+)", rule)
    if bound:
        limit = float(bound.group(2))
        ok = value >= limit if bound.group(1) == "at least" else value > limit
        return None if ok else rule
    span = re.fullmatch(r"(-?[\d.]+) to (-?[\d.]+)", rule)
    if span:
        lo, hi = float(span.group(1)), float(span.group(2))
        return None if lo <= value <= hi else f"within {rule}"
    raise ValueError(f"unknown parameter rule ({rule})")


def check(notebook: str, name: str, value, default, help_text: str, model=None) -> None:
    """Raise ParameterError (one line) when `value` is not allowed for this parameter. The line quotes the value
    with every URL redacted: a refused model spec may hold a password or a key, and the line goes to stderr."""
    from ..models.specs import scrub

    try:
        _check(notebook, name, value, default, help_text, model)
    except ParameterError as err:
        raise ParameterError(scrub(str(err))) from None


def _check(notebook: str, name: str, value, default, help_text: str, model=None) -> None:
    rule = rule_of(help_text)
    where = f"{notebook}: parameter {name} = {value!r}"
    if isinstance(default, list):
        if not isinstance(value, list):
            raise ParameterError(f"{where}: must be a list like {default!r}")
        if not value and default:
            raise ParameterError(f"{where}: the list is empty; give at least one value")
        element = default[0] if default else None
        for item in value:
            if element is not None and rule != "models" and not _same_type(item, element):
                raise ParameterError(f"{where}: every element must be of type {_type_name(element)}, not {item!r}")
            problem = _check_one(item, rule, model)
            if problem:
                raise ParameterError(f"{where}: {item!r} is not allowed; each element must be {problem}")
        return
    if default is not None and not _same_type(value, default):
        raise ParameterError(f"{where}: must be of type {_type_name(default)} (the default is {default!r})")
    problem = _check_one(value, rule, model)
    if problem:
        raise ParameterError(f"{where}: must be {problem}")
    if name.endswith("_path") and isinstance(value, str) and value:
        _check_file(where, value, default)


def _check_file(where: str, value: str, default) -> None:
    """A data file a parameter names: it must exist where the shipped default does, and read cleanly."""
    from ..paths import repo_path
    from .inputs import input_file_problem

    path = repo_path(value)
    shipped = isinstance(default, str) and default and repo_path(default).is_file()
    if shipped and not path.is_file():
        raise ParameterError(f"{where}: no such file ({path})")
    problem = input_file_problem(path)
    if problem:
        raise ParameterError(f"{where}: {path}: {problem}")


def check_all(notebook: str, declared: dict[str, dict], params: dict) -> None:
    """Check every given parameter of one notebook against its declaration."""
    model = params.get("model", literal(declared["model"]["default"]) if "model" in declared else None)
    for name, value in params.items():
        info = declared[name]
        check(notebook, name, value, literal(info["default"]), info.get("help", ""), model)


def check_rules(notebook: str, declared: dict[str, dict]) -> None:
    """Every declared rule must be one this module knows, and every default must keep its own rule."""
    for name, info in declared.items():
        default = literal(info["default"])
        check(notebook, name, default, default, info.get("help", ""))
