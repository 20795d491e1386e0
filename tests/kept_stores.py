"""What the replies kept across test sessions depend on beyond their request (conftest.kept_store).

The model-call cache is keyed by the request as the lab sees it, and the judge-card verdicts by judge, kind and
prompt: neither key names the llama.cpp build that answered (AVX2 and AVX-512 kernels give different
probabilities: lclab.models.llama_engine.cpu_build), llama-cpp-python's version (and so llama-server's, which is
built from the llama.cpp inside it), or the lab's code that turns a request into a reply. A user's cache keeps
that key (a warm rerun makes no call); the tests' kept stores sit in a folder named by a digest of all of these,
so a changed build, version or backend source starts an empty store instead of replaying old replies.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path

import lclab
from lclab.models import llama_engine
from lclab.models.local_models import llama_server_binary

# The lab's code that decides a kept reply (lib/lclab/...): what a backend is sent and answers, how the gateway
# bounds, parses and repairs it. Bookkeeping (accounting, retries, the cache's own files) is left out, so an
# edit there does not make a warm session cold.
BACKEND_SOURCES = ("models/backends.py", "models/fake.py", "models/gateway.py", "models/hf.py",
                   "models/json_posts.py", "models/jsonparse.py", "models/llama*.py", "models/local_models.py",
                   "models/protocol.py", "models/remote.py", "models/reply_limits.py", "models/request.py",
                   "models/prompts/*.txt")
# ... and for a judge card's verdict, the code that reads it from the judge's reply.
VERDICT_SOURCES = ("scoring/judges.py", "scoring/logprob.py", "scoring/judge_card.py")
SOURCES_ROOT = Path(lclab.__file__).parent  # the lclab package imported (the worktree's, under PYTHONPATH)


def sources_digest(patterns: tuple[str, ...], root: Path | None = None) -> str:
    """sha256 of the named source files under `root` (SOURCES_ROOT), names and contents."""
    root = SOURCES_ROOT if root is None else root
    digest = hashlib.sha256()
    for path in sorted({p for pattern in patterns for p in root.glob(pattern)}):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _recorded_flags(path: Path) -> str:
    """The compiler flags set-up recorded beside a build (scripts/llama_cpp.sh), or "" where it recorded none."""
    return path.read_text().strip() if path.exists() else ""


def build_description() -> dict[str, str]:
    """The llama.cpp builds that answer the kept calls: the embedded models' flavour as the library reports it,
    llama-cpp-python's version, and the flags set-up compiled the wheel and llama-server with. llama-server is
    built from the llama.cpp inside llama-cpp-python, so that version is its version too; until it is built
    (./run_tests.sh builds it beside the tests) its flags are the wheel's, which its build compiles with."""
    version = importlib.metadata.version("llama-cpp-python")
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    wheels = Path(os.environ.get("LCLAB_WHEEL_DIR", cache / "lclab" / "wheels"))
    wheel_flags = _recorded_flags(wheels / f"llama_cpp_python-{version}.flags")
    server = llama_server_binary()
    server_flags = _recorded_flags(server.parent / "cmake.flags") if server.exists() else wheel_flags
    return {"cpu_build": llama_engine.cpu_build(), "llama-cpp-python": version, "wheel_flags": wheel_flags,
            "llama-server": f"{server.parent.name} {server_flags}"}


def replies_digest(patterns: tuple[str, ...] = BACKEND_SOURCES, root: Path | None = None) -> str:
    """A short digest of the builds, the versions and the sources `patterns` names: what a kept store's folder is
    named by."""
    build = "\n".join(f"{k}={v}" for k, v in sorted(build_description().items()))
    return hashlib.sha256(f"{build}\n{sources_digest(patterns, root)}".encode()).hexdigest()[:12]
