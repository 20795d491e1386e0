"""Optional imports that other packages make eagerly and the lab never uses, deferred to their first use.

jsonschema (imported by nbformat, so by papermill, nbconvert and the plan in the runner, and by chromadb in every
kernel that retrieves) imports `rfc3987_syntax` if it is installed (it is: jupyterlab -> jupyter-events ->
jsonschema[format-nongpl]) to check the "iri" string format, and that module builds Lark parsers of the RFC 3987
grammar at import: 1.5 to 4 s of one core in every such process, for a format no schema the lab validates uses.
`import lclab` puts a stand-in there whose `is_valid_syntax` imports the real module on its first call, so a check
of that format still runs exactly as it would have.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types

DEFERRED = {"rfc3987_syntax": ("is_valid_syntax",)}


def defer_unused_imports() -> None:
    """Put a stand-in for each module in DEFERRED that is installed and not yet imported."""
    for name, functions in DEFERRED.items():
        if name in sys.modules or importlib.util.find_spec(name) is None:
            continue
        stand_in = types.ModuleType(name, f"stand-in for {name}: imported on first use (lclab.deferred_imports)")
        stand_in.__lclab_deferred__ = True
        for function in functions:
            setattr(stand_in, function, _forwarder(name, function))
        sys.modules[name] = stand_in


def _forwarder(module: str, function: str):
    def forward(*args, **kwargs):
        return getattr(_real(module), function)(*args, **kwargs)

    forward.__name__ = function
    return forward


def _real(module: str) -> types.ModuleType:
    loaded = sys.modules.get(module)
    if loaded is None or getattr(loaded, "__lclab_deferred__", False):
        sys.modules.pop(module, None)
        loaded = importlib.import_module(module)
    return loaded
