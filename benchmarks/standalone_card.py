"""A standalone-question judge's card on a kept blind review: does a judge asked whether a question can be
understood without its passage (the document's title given, `qa_standalone`) tell the pairs a reviewer kept from
those it rejected as not self-contained, where 00's rule (`self_contained`: the question points at "the passage",
"this project") does not reach?

    .venv/bin/python benchmarks/standalone_card.py data/qa_reviews/howtos30 [--judge SPEC] [--append]

Labels: the first reviewer's verdicts on every pair of the review, the ones the checks removed included (the
review mixed them in unmarked): kept = 1 against `not_self_contained` rejections = 0 (the other rejections left
out), and kept against every rejection. The unit is the passage (the pair's doc_id); the intervals resample it.
The rule's own AUC is read on the same pairs (its verdict 0/1). Rows: benchmarks/measured/standalone_card.csv.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
from review_cards import card_rows  # noqa: E402 (benchmarks/review_cards.py)
from tqdm import tqdm  # noqa: E402
from lclab.models import ACCOUNTING  # noqa: E402
from lclab.qa.checks import self_contained  # noqa: E402
from lclab.scoring.judges import judge_boolean  # noqa: E402

OUT = Path(__file__).resolve().parent / "measured" / "standalone_card.csv"


def reviewed(folder: Path) -> pd.DataFrame:
    """Every pair the first reviewer saw: those left for review and those the checks removed."""
    parts = [pd.read_csv(folder / name, dtype=str, keep_default_na=False) for name in ("qa_review.csv",
                                                                                         "qa_rejected.csv")]
    pairs = pd.concat(parts, ignore_index=True)
    return pairs[pairs["validated"].isin(["yes", "no"])].reset_index(drop=True)


def verdicts(pairs: pd.DataFrame, judge: str) -> pd.DataFrame:
    rows = []
    for r in tqdm(list(pairs.itertuples(index=False)), desc=f"standalone judge ({judge})"):
        got = judge_boolean(judge, "qa_standalone", "standalone", "qa_standalone judge", title=r.title,
                            question=r.question)
        rows.append({"qa_id": r.qa_id, "judge_p": got.metadata.get("p"),
                     "rule": float(self_contained(r.question, r.title))})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("review", type=Path, help="a kept review folder (qa_review.csv, qa_rejected.csv)")
    parser.add_argument("--judge", default="local/qwen2.5-coder-1.5b")
    parser.add_argument("--append", action="store_true", help=f"add the rows to {OUT.relative_to(OUT.parents[2])}")
    args = parser.parse_args()
    pairs = reviewed(args.review)
    ACCOUNTING.reset()
    start = time.perf_counter()
    scored = pairs[["qa_id", "doc_id", "validated", "review_reason"]].merge(verdicts(pairs, args.judge), on="qa_id")
    seconds = time.perf_counter() - start
    scored["label"] = (scored["validated"] == "yes").astype(int)
    apart = scored[(scored["label"] == 1) | (scored["review_reason"] == "not_self_contained")]
    scores = ("judge_p", "rule")
    rows = (card_rows(apart, scores, "kept vs not_self_contained", args.judge, args.review.name)
            + card_rows(scored, scores, "kept vs rejected", args.judge, args.review.name))
    calls = ACCOUNTING.table().set_index("stage").loc["total"]
    table = pd.DataFrame(rows).assign(calls=int(calls["calls"]), seconds=round(seconds, 1))
    print(table.to_string(index=False))
    if args.append:
        table.to_csv(OUT, mode="a", header=not OUT.exists(), index=False)


if __name__ == "__main__":
    main()
