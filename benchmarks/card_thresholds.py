"""Each embedded judge's card on the shipped texts read two ways from the same verdicts: at the judge's own 0.5
cut, and at the threshold the card now chooses by cross-validation over clusters (lclab.stats.card). Prints AUC
(the same either way), J with its interval, sensitivity, specificity, the cut, and whether the judge is read.

    .venv/bin/python benchmarks/card_thresholds.py                 # both embedded judges, 20 texts per kind
    .venv/bin/python benchmarks/card_thresholds.py --n-texts 0     # all texts (judges what is not kept yet)

No call where the verdicts are kept (the home folder's, or the repo's shipped ones once checked).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
from lclab.models.judge_choice import EMBEDDED_BY_STRENGTH  # noqa: E402
from lclab.scoring import shipped_cards  # noqa: E402
from lclab.scoring.card_store import kept_verdicts, prompt_id  # noqa: E402
from lclab.scoring.judge_card import card_texts, judge_card  # noqa: E402
from lclab.scoring.shipped_texts import KINDS  # noqa: E402
from lclab.stats.card import card_statistics  # noqa: E402


def both_ways(judge: str, kind: str, n_texts: int | None) -> dict:
    judge_card(judge, kind, n_texts, progress=False)  # every verdict kept (no call where they are)
    kept = shipped_cards.usable(judge, kind) | kept_verdicts(judge, kind)
    texts = card_texts(kind, n_texts)
    rows = [kept.get(prompt_id(KINDS[kind].prompt(r)), {}) for r in texts.itertuples(index=False)]
    verdicts = pd.Series([None if r.get("verdict") is None else float(r["verdict"]) for r in rows], dtype=object)
    p = pd.Series([r.get("p") for r in rows], dtype=object)
    half = card_statistics(texts["label"], verdicts, verdicts, texts["cluster"])  # 0/1 scores: read at 0.5
    cv = card_statistics(texts["label"], verdicts, p, texts["cluster"])
    j = "{youden:.2f} [{youden_lo:.2f}, {youden_hi:.2f}]"
    return {"judge": judge.split("/")[-1], "kind": kind, "n": cv["n"], "clusters": cv["n_clusters"],
            "auc": f"{cv['auc']:.2f} [{cv['auc_lo']:.2f}, {cv['auc_hi']:.2f}]",
            "J at 0.5": j.format(**half), "sens/spec at 0.5": f"{half['sensitivity']:.2f}/{half['specificity']:.2f}",
            "read at 0.5": half["informative"], "J cross-validated": j.format(**cv),
            "sens/spec cv": f"{cv['sensitivity']:.2f}/{cv['specificity']:.2f}", "cut": round(cv["threshold"], 3),
            "read cv": cv["informative"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", nargs="+", default=list(EMBEDDED_BY_STRENGTH))
    parser.add_argument("--n-texts", type=int, default=20, help="texts per kind (0: all)")
    args = parser.parse_args()
    table = pd.DataFrame([both_ways(j, k, args.n_texts or None) for j in args.judges for k in KINDS])
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
