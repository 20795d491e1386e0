"""A standalone-question judge's card on a kept blind review: does a judge asked whether a question can be
understood without its passage (the document's title given, `qa_standalone`) tell the pairs a reviewer kept from
those it rejected as not self-contained, where 00's rule (`self_contained`: the question points at "the passage",
"this project") does not reach?

    .venv/bin/python benchmarks/standalone_card.py data/qa_reviews/howtos30 [--judge SPEC] [--append]

Labels: the first reviewer's verdicts on every pair of the review, the ones the checks removed included (the
review mixed them in unmarked): kept = 1 against `not_self_contained` rejections = 0 (the other rejections left
out), and kept against every rejection. The unit is the passage (the pair's doc_id); the intervals resample it.
The rule's own AUC is read on the same pairs (its verdict 0/1). Rows: standalone_card.csv in the review folder (--append).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
from review_cards import measure  # noqa: E402 (benchmarks/review_cards.py)
from tqdm import tqdm  # noqa: E402
from lclab.qa.checks import self_contained  # noqa: E402
from lclab.scoring.judges import judge_boolean  # noqa: E402

OUT = "standalone_card.csv"  # beside the review it reads: data/qa_reviews/<run>/standalone_card.csv


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
    measure(__doc__, OUT, reviewed, verdicts, ("judge_p", "rule"), {
        "kept vs not_self_contained": lambda s: (s["label"] == 1) | (s["review_reason"] == "not_self_contained"),
        "kept vs rejected": lambda s: s["label"].notna()})


if __name__ == "__main__":
    main()
