"""How runs are named and what their parameters may show: folder suffixes for --model runs (a served model by its
name and host), where executed notebooks go, and model specs with their URL credentials hidden."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from .. import paths
from ..models.specs import hide_credentials


def without_credentials(value):
    """Model specs with their URL credentials hidden (models.specs.hide_credentials): papermill writes every
    parameter into the executed notebook, and runs record their parameters."""
    if isinstance(value, str):
        return hide_credentials(value) if "://" in value else value
    if isinstance(value, list):
        return [without_credentials(v) for v in value]
    if isinstance(value, dict):
        return {k: without_credentials(v) for k, v in value.items()}
    return value


def executed_dir(profile: str, model: str | None = None) -> Path:
    """Where a profile's executed notebooks go: results/notebooks/<profile>/, or <profile>-<model slug>/ for a
    --model run (a run of its own, beside the profile's, not over it)."""
    return paths.RESULTS / "notebooks" / (Path(profile).stem + (f"-{model_slug(model)}" if model else ""))


def model_slug(model: str) -> str:
    """The suffix a run with another model adds to run folders: "local/qwen2.5-coder-0.5b" -> "qwen2.5-coder-0.5b";
    a served model by URL is named by its served name and host, "openai/qwen@http://gpu1:8000/v1" ->
    "qwen-gpu1-8000", so that two servers never share a run folder (nor a credential reach a folder name)."""
    name, at, urls = model.partition("@")
    if at and "://" in urls:
        try:
            host = urlsplit(urls.split(",")[0].strip())
            hostname, port = host.hostname or "", host.port or ""
        except ValueError:  # a malformed URL: refused by the parameter check; a name is still owed to its message
            hostname, port = "malformed-url", ""
        name = f"{name.split('/', 1)[-1]}-{hostname}-{port}"
    return re.sub(r"[^A-Za-z0-9.]+", "-", name if at else model.split("/")[-1]).strip("-")
