"""RULER's own generators and scorer, as lm-eval ports them (lm_eval/tasks/ruler, Apache-2.0), for the tests that put
the lab's RULER set beside them. Set-up installs lm-eval without its dependencies (scripts/setup.sh); its package
is not imported (that loads its evaluator), only the task folder's modules, each by its own name.

What those modules import and the lab does not install is stood in for here, and none of it is on the path the
tests read: `datasets` (its Dataset wraps finished samples; its hub download fetches the essays, given here from
the lab's corpus instead), and nltk (RULER splits essays into sentences with punkt, whose data cannot be fetched
offline; the stand-in splits after a full stop, question or exclamation mark and a space)."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import sys
import types
from pathlib import Path

import pytest

MODULES = ("common_utils", "prepare_niah", "niah_utils", "vt_utils", "cwe_utils", "fwe_utils")


def _package(name: str, folder: Path) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = [str(folder)]
    return module


def _stand_ins(essays: list[str]) -> dict[str, types.ModuleType]:
    datasets = types.ModuleType("datasets")
    datasets.Dataset = type("Dataset", (), {"from_list": staticmethod(lambda rows, split=None: rows)})
    datasets.Split = types.SimpleNamespace(TEST="test")
    datasets.load_dataset = lambda name, split=None: {"text": essays}
    nltk = types.ModuleType("nltk")
    nltk.sent_tokenize = lambda text: re.split(r"(?<=[.!?])\s+", text)
    nltk.data = types.SimpleNamespace(find=lambda resource: resource)
    return {"datasets": datasets, "nltk": nltk}


def load(essays: list[str]) -> dict[str, types.ModuleType]:
    """{module name: module} of lm-eval's RULER folder; skips the calling test (said on the terminal) where
    lm-eval is not installed."""
    try:
        folder = Path(importlib.metadata.distribution("lm_eval").locate_file("lm_eval/tasks/ruler"))
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("lm-eval is not installed: scripts/setup.sh installs it (without its dependencies)")
    real_version = importlib.metadata.version
    with pytest.MonkeyPatch.context() as patch:
        for name, module in {"lm_eval": _package("lm_eval", folder.parents[1]),
                             "lm_eval.tasks": _package("lm_eval.tasks", folder.parent),
                             "lm_eval.tasks.ruler": _package("lm_eval.tasks.ruler", folder),
                             **_stand_ins(essays)}.items():
            if name not in sys.modules or name.startswith("lm_eval"):
                patch.setitem(sys.modules, name, module)
        # prepare_niah checks nltk's version before it asks nltk for punkt: the stand-in has no distribution
        patch.setattr(importlib.metadata, "version",
                      lambda dist: "3.9.1" if dist == "nltk" else real_version(dist))
        loaded = {name: importlib.import_module(f"lm_eval.tasks.ruler.{name}") for name in MODULES}
        for name in MODULES:  # imported under the stand-ins: not left for another test to find
            sys.modules.pop(f"lm_eval.tasks.ruler.{name}", None)
    return loaded
