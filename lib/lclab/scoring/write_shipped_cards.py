"""Write an embedded judge's card verdicts into data/judge_cards (what shipped_cards.py reads):

    .venv/bin/python -m lclab.scoring.write_shipped_cards local/qwen2.5-coder-0.5b local/qwen2.5-coder-1.5b

Every verdict written is judged on the machine this runs on (anything shipped is ignored; the home folder's
verdicts of the same judge are reused), for the texts a card of `--n-texts` per kind reads, into the folder of
this machine's llama.cpp build (an AVX-512 build's into `avx512/`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from datetime import date
from pathlib import Path

from ..paths import DATA
from .card_store import prompt_id, read_verdicts, store_path
from .judge_card import card_texts, judge_card
from .shipped_cards import build_folder
from .shipped_texts import KINDS


def write_shipped(judge: str, n_texts: int | None) -> Path:
    """Judge (here, ignoring anything shipped) every kind's card texts and write their verdicts as the repo's."""
    from importlib.metadata import version

    from ..models.llama_engine import cpu_build
    from ..models.local_models import EMBEDDED_MODELS

    os.environ["LCLAB_SHIPPED_CARDS"] = os.devnull  # every verdict written is one judged on this machine
    folder = build_folder(DATA / "judge_cards", judge)
    folder.mkdir(parents=True, exist_ok=True)
    for kind, k in KINDS.items():
        judge_card(judge, kind, n_texts)
        here = read_verdicts(store_path(judge, kind))
        wanted = {prompt_id(k.prompt(r)) for r in card_texts(kind, n_texts).itertuples(index=False)}
        rows = sorted((here[p] for p in wanted if p in here and here[p].get("verdict") is not None),
                      key=lambda r: r["prompt"])
        (folder / f"{kind}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    (folder / "shipped.json").write_text(json.dumps({
        "judge": judge, "model_sha256": EMBEDDED_MODELS[judge.split("/", 1)[1]].sha256,
        "texts_per_kind": n_texts or "all", "made": date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores", "llama_cpp_python": version("llama-cpp-python"),
        "llama_cpp_build": cpu_build(),
    }, indent=1) + "\n")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description="Write an embedded judge's card verdicts into data/judge_cards.")
    parser.add_argument("judges", nargs="+", help="local/ model specs")
    parser.add_argument("--n-texts", type=int, default=20, help="texts per kind, as a card draws them (0: all)")
    args = parser.parse_args()
    for judge in args.judges:
        print(write_shipped(judge, args.n_texts or None))


if __name__ == "__main__":
    main()
