"""What a blind review of 00's pairs says of the set and of each check (#89), per make_qa_set run folder:

- the share of reviewed pairs for review (qa_review.csv) the reviewer kept, with its 95 % Wilson interval;
- kept pairs per sampled passage (one row per passage in the two files);
- of the removed pairs the review saw (mixed in blind from qa_rejected.csv), the share the reviewer kept;
- each check's precision: of the reviewed pairs it removed (or flagged), the share the reviewer rejected, and
  the reasons given;
- the two reviewers' Cohen's kappa where a second review exists (lclab.qa.review_desk).

    .venv/bin/python benchmarks/qa_review_summary.py results/make_qa_set/<run> [...] [--append]

The unit is the QA pair (one per passage); n is given with every share. `--append` adds a row per run to
benchmarks/measured/qa_review.csv.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _reviewed(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, dtype=str, keep_default_na=False) if path.exists() else pd.DataFrame()
    return df[df.get("validated", pd.Series(dtype=str)).str.strip().str.lower().isin(["yes", "no"])] \
        if len(df) else df


def _share(yes: int, n: int) -> str:
    from lclab.stats import wilson_interval

    if not n:
        return "n = 0"
    lo, hi = wilson_interval(yes, n)
    return f"{yes}/{n} = {yes / n:.2f} [{lo:.2f}, {hi:.2f}]"


def summary(folder: Path) -> dict:
    from lclab.qa.checks import CHECKS, REMOVES
    from lclab.qa.review_desk import ReviewDesk

    review = pd.read_csv(folder / "qa_review.csv", dtype=str, keep_default_na=False)
    rejected_all = pd.read_csv(folder / "qa_rejected.csv", dtype=str, keep_default_na=False)
    kept_rows, audited = _reviewed(folder / "qa_review.csv"), _reviewed(folder / "qa_rejected.csv")
    yes = lambda df: int((df["validated"].str.lower() == "yes").sum()) if len(df) else 0  # noqa: E731
    passages = len(review) + len(rejected_all)
    out = {"run": folder.name, "passages": passages, "for_review": len(review), "removed": len(rejected_all),
           "reviewed": len(kept_rows), "kept": yes(kept_rows),
           "kept_share": _share(yes(kept_rows), len(kept_rows)),
           "kept_per_passage": round(yes(kept_rows) / passages, 2) if passages else None,
           "removed_reviewed": len(audited), "removed_kept": _share(yes(audited), len(audited))}
    both = pd.concat([kept_rows, audited], ignore_index=True)
    for check in CHECKS:
        column = f"checks_{check}"
        if column not in both:
            continue
        failed = both[both[column].str.lower() == "false"]
        what = "removed" if check in REMOVES else "flagged"
        reasons = failed.loc[failed["validated"].str.lower() == "no", "review_reason"].value_counts().to_dict()
        out[f"{check} ({what})"] = (f"{_share(len(failed) - yes(failed), len(failed))} rejected; reasons {reasons}"
                                    if len(failed) else "n = 0")
    agreement = ReviewDesk(folder).agreement() if (folder / "qa_review_second.csv").exists() else {}
    if agreement:
        out["kappa"] = agreement["text"]
    out["checks"] = "; ".join(f"{k.split(' ')[0]} {v.split(' rejected')[0]}" for k, v in out.items()
                              if k.endswith(("(removed)", "(flagged)")) and v != "n = 0")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--append", action="store_true")
    args = parser.parse_args(argv)
    for folder in args.runs:
        got = summary(folder)
        for key, value in got.items():
            print(f"{key}: {value}")
        print()
        if args.append:
            from measured_rows import append

            append("qa_review", [{k: got[k] for k in ("run", "passages", "for_review", "removed", "reviewed", "kept",
                                                     "kept_share", "kept_per_passage", "removed_reviewed",
                                                     "removed_kept", "checks")} | {"kappa": got.get("kappa", "")}])
    return 0


if __name__ == "__main__":
    sys.exit(main())
