"""The embedded judges' card verdicts, shipped with the repo (data/judge_cards/) so that a first run does not
judge every shipped labelled text again.

    python -m lclab.scoring.write_shipped_cards local/qwen2.5-coder-1.5b --n-texts 20   # (re)write them

An embedded judge (a `local/` model whose weights are pinned by sha256) gives the same verdict on the same prompt
on every machine with the same llama.cpp build, up to its floating point; set-up's AVX-512 and AVX2 builds differ
more (lclab.models.llama_engine.cpu_build), so each has its own verdicts where the repo ships them. A card reads
a kind's shipped verdicts only after this machine has judged the first CHECKED of that kind's shipped texts itself
and found each alike (the same verdict, or the probability within TOLERANCE). Where they differ, this machine
judges every text itself, says so once on stderr, and never reads that kind's shipped verdicts again (the check is
kept beside the judge's own verdicts, until the shipped file changes). A verdict judged here always wins over a
shipped one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from ..paths import DATA
from .card_store import read_verdicts, store_name, store_path

CHECKED = 2  # texts per kind this machine judges again before it reads the shipped verdicts
TOLERANCE = 0.02  # largest difference of p(verdict) read as the same verdict (thread counts reorder sums)


def shipped_root() -> Path:
    return Path(os.environ.get("LCLAB_SHIPPED_CARDS", DATA / "judge_cards"))


def build_folder(root: Path, judge: str) -> Path:
    """The folder under `root` for `judge`'s verdicts judged by this machine's llama.cpp build: the judge's own
    folder for the AVX2 build, `avx512/` inside it for the AVX-512 build."""
    from ..models.llama_engine import cpu_build

    folder = root / store_name(judge)
    return folder if cpu_build() == "avx2" else folder / cpu_build()


def shipped_folder(judge: str) -> Path:
    """Where `judge`'s shipped verdicts are: those judged by this machine's llama.cpp build where the repo has
    them, else the AVX2 build's."""
    built = build_folder(shipped_root(), judge)
    return built if (built / "shipped.json").exists() else shipped_root() / store_name(judge)


def shipped_file(judge: str, kind: str) -> Path | None:
    """The shipped verdicts of `judge` on `kind`, if the repo has them for exactly the weights installed here."""
    from ..models.local_models import EMBEDDED_MODELS

    if not judge.startswith("local/"):
        return None
    folder = shipped_folder(judge)
    model = EMBEDDED_MODELS.get(judge.split("/", 1)[1])
    made = folder / "shipped.json"
    if model is None or not made.exists() or json.loads(made.read_text())["model_sha256"] != model.sha256:
        return None
    path = folder / f"{kind}.jsonl"
    return path if path.exists() else None


def _check_path(judge: str, kind: str) -> Path:
    return store_path(judge, kind).with_name(f"{kind}.shipped-check.json")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _check(judge: str, kind: str, path: Path) -> dict | None:
    """This machine's check of the shipped file at `path`, if it was made on that very file."""
    check = _check_path(judge, kind)
    if not check.exists():
        return None
    outcome = json.loads(check.read_text())
    return outcome if outcome.get("shipped_sha256") == _sha256(path) else None


def to_check(judge: str, kind: str, prompt_ids: list[str]) -> list[str]:
    """The prompts (of a card's, in its order) this machine must judge before it may read the shipped verdicts:
    the first CHECKED that the repo ships, or none when there is nothing shipped or the check is done."""
    path = shipped_file(judge, kind)
    if path is None or _check(judge, kind, path) is not None:
        return []
    shipped = read_verdicts(path)
    return [p for p in prompt_ids if p in shipped][:CHECKED]


def alike(shipped: dict, here: dict) -> bool:
    if shipped.get("p") is not None and here.get("p") is not None:
        return abs(shipped["p"] - here["p"]) <= TOLERANCE
    return shipped.get("verdict") == here.get("verdict") and shipped.get("source") == here.get("source")


def record_check(judge: str, kind: str, checked: list[str], here: dict) -> None:
    """Compare this machine's verdicts on the `checked` prompts with the shipped ones and keep the outcome (not
    when a check call failed: it is asked again next time)."""
    path = shipped_file(judge, kind)
    if path is None or not checked or any(here.get(p, {}).get("verdict") is None for p in checked):
        return
    shipped = read_verdicts(path)
    rows = [{"prompt": p, "shipped_p": shipped[p].get("p"), "here_p": here[p].get("p"),
             "shipped_verdict": shipped[p].get("verdict"), "here_verdict": here[p].get("verdict")} for p in checked]
    agree = all(alike(shipped[p], here[p]) for p in checked)
    if not agree:
        print(f"judge card {store_name(judge)}/{kind}: this machine's verdicts differ from the shipped ones "
              f"({rows}); judging every text here instead", file=sys.stderr)
    check = _check_path(judge, kind)
    check.parent.mkdir(parents=True, exist_ok=True)
    check.write_text(json.dumps({"shipped_sha256": _sha256(path), "agree": agree, "tolerance": TOLERANCE,
                                 "checked": rows}, indent=1))


def usable(judge: str, kind: str, assume_agreement: bool = False) -> dict[str, dict]:
    """prompt id -> shipped verdict, where this machine's check agreed (`assume_agreement`: also before the
    check, as a plan prices a first run)."""
    path = shipped_file(judge, kind)
    if path is None:
        return {}
    check = _check(judge, kind, path)
    if (check or {}).get("agree") or (check is None and assume_agreement):
        return read_verdicts(path)
    return {}
