"""The round-trip judge's card on a kept blind review: does the correctness judge, reading the round trip's answer
(the generator given the passage and the question) against the pair's gold answer, tell the pairs a reviewer kept
from those it rejected, better than the string match 00 uses today?

    .venv/bin/python benchmarks/round_trip_card.py data/qa_reviews/howtos30
    .venv/bin/python benchmarks/round_trip_card.py data/qa_reviews/howtos30 --judge local/qwen2.5-coder-0.5b

Labels: the first reviewer's verdict on each pair that went to review (kept = 1), and apart, kept against
"wrong_answer" rejections only (what a round trip can see). The unit is the passage (the pair's doc_id): the
intervals resample passages. Every number is read from this call's verdicts (cached: a second call makes none);
the rows go to round_trip_card.csv in the review folder with --append.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from review_cards import measure  # noqa: E402 (benchmarks/review_cards.py)
from tqdm import tqdm  # noqa: E402
from lclab.scoring.baselines import content_overlap  # noqa: E402
from lclab.scoring.judge_kinds import CORRECTNESS  # noqa: E402
from lclab.scoring.judges import string_match  # noqa: E402

OUT = "round_trip_card.csv"  # beside the review it reads: data/qa_reviews/<run>/round_trip_card.csv


def verdicts(pairs: pd.DataFrame, judge: str) -> pd.DataFrame:
    """Each pair's round trip read three ways: the judge's p(correct), the string match, the word overlap."""
    rows = []
    for r in tqdm(list(pairs.itertuples(index=False)), desc=f"round-trip judge ({judge})"):
        item = {"question": r.question, "response": r.round_trip_answer, "reference": r.answer}
        got = CORRECTNESS.judge(judge, item, stage="qa_round_trip judge")
        rows.append({"qa_id": r.qa_id, "judge_p": got.metadata.get("p"), "judge_error": got.unscored,
                     "string_match": string_match(r.round_trip_answer, r.answer).value,
                     "overlap": content_overlap(r.answer, r.round_trip_answer)})
    return pd.DataFrame(rows)


def read_pairs(folder: Path) -> pd.DataFrame:
    """The pairs that went to review with a round trip's answer, and the first reviewer's verdict."""
    pairs = pd.read_csv(folder / "qa_review.csv", dtype=str, keep_default_na=False)
    return pairs[(pairs["round_trip_answer"] != "") & pairs["validated"].isin(["yes", "no"])]


def main() -> None:
    scored = measure(__doc__, OUT, read_pairs, verdicts, ("judge_p", "string_match", "overlap"), {
        "kept vs rejected": lambda s: s["label"].notna(),
        "kept vs wrong_answer": lambda s: (s["label"] == 1) | (s["review_reason"] == "wrong_answer")})
    for labels, part in (("kept", scored[scored["label"] == 1]), ("rejected", scored[scored["label"] == 0])):
        print(f"mean judge p on {labels}: {np.nanmean(part['judge_p'].astype(float)):.2f} (n {len(part)})")


if __name__ == "__main__":
    main()
