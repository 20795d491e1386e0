"""The review of generated QA pairs one at a time, blind (issue #89): the logic over a make_qa_set run's review
files that the explorer's QA desk (lclab.explore.qa_desk) and this command line share.

    python -m lclab.qa.review_desk sheet RUN_DIR [--second] [--audit 0.2] [--seed 0] [--reviewer NAME]
    python -m lclab.qa.review_desk record RUN_DIR DECISIONS.csv --reviewer NAME [--second]
    python -m lclab.qa.review_desk progress RUN_DIR

The queue is every unreviewed pair of qa_review.csv and, mixed in unmarked, an `audit` share of the pairs a check
removed (qa_rejected.csv): the review then also measures what the checks throw away wrongly. The view is blind:
the passage, its title and heading, the question and the answer, never a check's result, the file a pair is in
or another reviewer's verdict. Each answer rewrites the pair's own file at once (atomically), so 01/02 read only
qa_review.csv and a closed browser loses nothing. The second reviewer reviews, blind, the pairs the first
reviewed, as generated, into qa_review_second.csv; their agreement is Cohen's kappa.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ..paths import write_atomic
from ..stats import cohen_kappa, kappa_with_ci, wilson_interval
from .review import REASONS, review_marks

REVIEW, REJECTED, SECOND = "qa_review.csv", "qa_rejected.csv", "qa_review_second.csv"
SECOND_COLUMNS = ["qa_id", "validated", "review_reason", "review_note", "reviewer", "reviewed_at"]
BLIND = ("qa_id", "title", "heading", "passage", "answer_start", "question", "answer")  # all a reviewer sees
# What a review writes; a file 00 wrote before the review columns existed gets them at its end.
REVIEWED = ["validated", "review_note", "review_reason", "reviewer", "reviewed_at", "original_question",
            "original_answer"]
ANSWERS = {"yes": "yes", "y": "yes", "keep": "yes", "no": "no", "n": "no", "reject": "no"}


def read_file(path: Path, columns=REVIEWED) -> pd.DataFrame:
    """A review file as text, every value as written (a rewrite keeps the columns and values it does not set)."""
    df = (pd.read_csv(path, dtype=str, keep_default_na=False) if path.exists() and path.stat().st_size
          else pd.DataFrame({"qa_id": pd.Series(dtype=str)}))
    for column in columns:
        if column not in df:
            df[column] = ""
    df["validated"] = review_marks(df, path.name)  # "yes" / "no" / "", or an error naming the rows
    return df


def answer_at(passage: str, answer: str, start="") -> int:
    """Where the answer stands in the passage: at `start` (00's answer_start) if it is there, else where a
    case-insensitive search finds it, else -1."""
    at = int(start) if str(start).lstrip("-").isdigit() else -1
    if not answer or at < 0 or passage[at:at + len(answer)].lower() != answer.lower():
        found = re.search(re.escape(answer), passage, re.IGNORECASE) if answer else None
        at = found.start() if found else -1
    return at


def _rank(seed: int, what: str, qa_id: str) -> str:
    """A pair's place in a seeded order that does not move as pairs are reviewed or 00 adds a batch."""
    return hashlib.sha1(f"{seed}:{what}:{qa_id}".encode()).hexdigest()


def _same(a: str, b: str) -> bool:
    return " ".join(str(a).split()) == " ".join(str(b).split())  # a text field cannot hold a line break


def checked(decision: dict) -> tuple[str, str, str, str]:
    """(qa_id, validated, reason, note) of one decision, or a ValueError saying what is wrong with it."""
    qa_id = str(decision.get("qa_id", "")).strip()
    verdict = ANSWERS.get(str(decision.get("validated", "")).strip().lower())
    if verdict is None:
        raise ValueError(f"pair {qa_id}: validated is yes or no, not {decision.get('validated')!r}")
    reason = str(decision.get("review_reason") or "").strip()
    if reason.isdigit() and 1 <= int(reason) <= len(REASONS):  # the desk's keys 1-7
        reason = REASONS[int(reason) - 1]
    if reason and reason not in REASONS:
        raise ValueError(f"pair {qa_id}: unknown reason {reason!r}; the reasons are {', '.join(REASONS)}")
    if verdict == "no" and not reason:
        raise ValueError(f"pair {qa_id}: a rejected pair needs a reason ({', '.join(REASONS)})")
    if verdict == "yes" and reason not in ("", "other"):
        raise ValueError(f"pair {qa_id}: a kept pair takes no reason but 'other' (got {reason!r})")
    return qa_id, verdict, reason, str(decision.get("review_note") or "").strip()


@dataclass(frozen=True)
class ReviewDesk:
    """One reviewer's session over `run_dir` (results/make_qa_set/<run>/): the first review, or the `second`."""

    run_dir: Path
    reviewer: str = ""
    second: bool = False
    audit: float = 0.2  # the share of the removed pairs mixed in, unmarked
    seed: int = 0

    def __post_init__(self):
        if not 0 <= self.audit <= 1:
            raise ValueError(f"audit is a share between 0 and 1 (got {self.audit})")
        if not (Path(self.run_dir) / REVIEW).exists():
            raise FileNotFoundError(f"{self.name} has no {REVIEW}: run notebook 00 (make_qa_set) first")

    @property
    def name(self) -> str:
        return f"{Path(self.run_dir).parent.name}/{Path(self.run_dir).name}"

    def files(self) -> dict[str, pd.DataFrame]:
        """Both files as they are now (a hand edit between two answers is seen); a qa_id names one pair only."""
        out = {f: read_file(Path(self.run_dir) / f) for f in (REVIEW, REJECTED)}
        ids = pd.concat([df["qa_id"] for df in out.values()])
        if ids.duplicated().any():
            raise ValueError(f"{self.name}: qa_id {sorted(set(ids[ids.duplicated()]))[:5]} stands twice in "
                             f"{REVIEW} and {REJECTED}; each pair needs an id of its own")
        return out

    def second_file(self) -> pd.DataFrame:
        return read_file(Path(self.run_dir) / SECOND, SECOND_COLUMNS)[SECOND_COLUMNS]

    def pool(self, files: dict[str, pd.DataFrame]) -> pd.DataFrame:
        """Every pair of this session, reviewed or not, with the file it is in (`_file`, never shown)."""
        review, rejected = files[REVIEW], files[REJECTED]
        if self.second:
            both = pd.concat([review.assign(_file=REVIEW), rejected.assign(_file=REJECTED)], ignore_index=True)
            first = both[both["validated"] != ""]
            if self.reviewer:  # a second review by the first reviewer would measure nothing
                first = first[first["reviewer"].str.strip().str.lower() != self.reviewer.strip().lower()]
            return first
        ids = sorted(rejected["qa_id"], key=lambda q: _rank(self.seed, "audit", q))
        share = math.ceil(self.audit * len(ids) - 1e-9)  # one at least where any; 0.2 * 10 is 2.0000000000000004
        audited = set(ids[:share]) | set(rejected.loc[rejected["validated"] != "", "qa_id"])  # answered: still in
        return pd.concat([review.assign(_file=REVIEW), rejected[rejected["qa_id"].isin(audited)].assign(
            _file=REJECTED)], ignore_index=True)

    def queue(self) -> list[str]:
        """The qa_ids still to review, in the session's order (seeded, the audited pairs mixed in)."""
        pool = self.pool(self.files())
        done = set(self.second_file()["qa_id"]) if self.second else set(pool.loc[pool["validated"] != "", "qa_id"])
        return sorted((q for q in pool["qa_id"] if q not in done), key=lambda q: _rank(self.seed, "order", q))

    def view(self, qa_id: str) -> dict:
        """What the reviewer sees of one pair (BLIND): the second reviewer sees the text as generated."""
        row = next((r for r in self.pool(self.files()).to_dict("records") if r["qa_id"] == qa_id), None)
        if row is None:
            raise ValueError(f"no pair {qa_id!r} to review in {self.name}")
        if self.second:
            row = {**row, "question": row["original_question"] or row["question"],
                   "answer": row["original_answer"] or row["answer"]}
        passage = row.get("passage", "")
        return {"qa_id": qa_id, "title": row.get("title", ""), "heading": row.get("heading", ""), "passage": passage,
                "answer_start": answer_at(passage, row["answer"], row.get("answer_start", "")),
                "question": row["question"], "answer": row["answer"]}

    def record(self, qa_id: str, validated: str, review_reason: str = "", review_note: str = "",
               question: str | None = None, answer: str | None = None) -> bool:
        """One answer, in its file at once; False when the pair already has exactly this answer (a double
        submit is done, not an error)."""
        return bool(self.record_many([{"qa_id": qa_id, "validated": validated, "review_reason": review_reason,
                                       "review_note": review_note, "question": question, "answer": answer}]))

    def record_many(self, decisions: list[dict]) -> int:
        """Decisions (qa_id, validated, review_reason, review_note[, question, answer]) checked all before any is
        written, then each file rewritten once. Returns how many changed a row."""
        if not self.reviewer.strip():
            raise ValueError("name the reviewer: a review says who gave it")
        files, changed = self.files(), set()
        pool = self.pool(files)
        where = dict(zip(pool["qa_id"], pool["_file"])) if self.second else \
            {q: f for f, df in files.items() for q in df["qa_id"]}
        target = {SECOND: self.second_file()} if self.second else files
        for decision in decisions:
            qa_id, verdict, reason, note = checked(decision)
            if qa_id not in where:
                raise ValueError(f"no pair {qa_id!r} in {self.name}" + (
                    " reviewed first by another reviewer (the second reviewer reviews what the first reviewed)"
                    if self.second else ""))
            file = SECOND if self.second else where[qa_id]
            edits = {} if self.second else self._edits(target[file], qa_id, decision)
            new = {"validated": verdict, "review_reason": reason, "review_note": note, **edits}
            target[file], did = _upsert(target[file], qa_id, new, self.reviewer.strip())
            changed |= {(file, qa_id)} if did else set()
        for file in {f for f, _ in changed}:
            write_atomic(Path(self.run_dir) / file, lambda tmp, df=target[file]: df.to_csv(tmp, index=False))
        return len(changed)

    def _edits(self, df: pd.DataFrame, qa_id: str, decision: dict) -> dict:
        """The reviewer's question and answer where they differ from the file's: the generated text is kept in
        original_question / original_answer (cleared again when an edit goes back to it)."""
        row, out = df.loc[df["qa_id"] == qa_id].iloc[0], {}
        for field in ("question", "answer"):
            text = decision.get(field)
            if text is None or _same(text, row[field]):
                continue
            if not str(text).strip():
                raise ValueError(f"pair {qa_id}: the {field} cannot be empty")
            original = row[f"original_{field}"] or row[field]
            out |= {field: str(text).strip(), f"original_{field}": "" if _same(text, original) else original}
        return out

    def progress(self) -> dict:
        """How far the session is: reviewed, left, the share kept (95 % Wilson); for the first review also the
        review file's and the audited removed pairs' own counts (said when the session is over, not per pair)."""
        files = self.files()
        pool, left = self.pool(files), len(self.queue())
        if self.second:
            done = self.second_file()
            done = done[done["qa_id"].isin(pool["qa_id"])]
        else:
            done = pool[pool["validated"] != ""]
        out = {"reviewed": len(done), "left": left, **_share(done, "kept")}
        if not self.second:
            out |= {"for_review": len(files[REVIEW]), "removed": len(files[REJECTED]),
                    **_share(files[REVIEW][files[REVIEW]["validated"] != ""], "review_kept"),
                    **_share(files[REJECTED][files[REJECTED]["validated"] != ""], "audit_kept")}
        return out

    def agreement(self, ci: bool = True) -> dict:
        """Cohen's kappa of keep/reject between the first and the second reviewer over the pairs both reviewed,
        with n and (`ci`: 2,000 bootstrap replicates, a second or two) its 95 % CI; below two pairs, or with one
        answer only, "too few pairs"."""
        files = self.files()
        first = pd.concat([df[["qa_id", "validated"]] for df in files.values()])
        both = first[first["validated"] != ""].merge(self.second_file()[["qa_id", "validated"]], on="qa_id",
                                                     suffixes=("_first", "_second"))
        both = both[both["validated_second"] != ""]
        a, b = (both["validated_first"] == "yes").astype(int), (both["validated_second"] == "yes").astype(int)
        n = len(both)
        if n < 2 or a.nunique() < 2 or b.nunique() < 2:
            return {"n": n, "kappa": None, "text": f"too few pairs for Cohen's kappa ({n} reviewed by both; it needs "
                                                   "two or more, and each reviewer keeping some and rejecting some)"}
        a, b = a.to_numpy(), b.to_numpy()
        k = kappa_with_ci(a, b) if ci else {"kappa": cohen_kappa(a, b), "agreement": float((a == b).mean())}
        interval = f" [{k['kappa_lo']:.2f}, {k['kappa_hi']:.2f}]" if ci else ""
        return {"n": n, **k, "text": f"Cohen's kappa {k['kappa']:.2f}{interval} over {n} pairs both reviewed "
                                     f"(raw agreement {k['agreement']:.0%})"}


def _share(done: pd.DataFrame, name: str) -> dict:
    kept, n = int((done["validated"] == "yes").sum()), len(done)
    lo, hi = wilson_interval(kept, n)
    return {name: kept, f"{name}_of": n, f"{name}_lo": lo, f"{name}_hi": hi}


def _upsert(df: pd.DataFrame, qa_id: str, new: dict, reviewer: str) -> tuple[pd.DataFrame, bool]:
    """`df` with the pair's row set to `new` (signed and dated), or unchanged when it holds `new` already."""
    rows = df.index[df["qa_id"] == qa_id]
    if len(rows) and all(df.at[rows[0], k] == v for k, v in new.items()):
        return df, False
    if not len(rows):
        df = pd.concat([df, pd.DataFrame([{"qa_id": qa_id}])], ignore_index=True).fillna("")
        rows = df.index[df["qa_id"] == qa_id]
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    for key, value in {**new, "reviewer": reviewer, "reviewed_at": now}.items():
        df.at[rows[0], key] = value
    return df, True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lclab.qa.review_desk", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("sheet", "the blind queue, one JSON object per line"),
                       ("record", "record a CSV of decisions (qa_id, validated, review_reason, review_note"
                                  "[, question, answer])"),
                       ("progress", "the review's counts and the two reviewers' agreement")):
        command = sub.add_parser(name, help=text)
        command.add_argument("run_dir", type=Path)
        if name == "record":
            command.add_argument("decisions", type=Path)
        command.add_argument("--reviewer", default="", required=name == "record")
        command.add_argument("--second", action="store_true", help="the second reviewer's blind review")
        command.add_argument("--audit", type=float, default=0.2, help="share of removed pairs mixed in")
        command.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        desk = ReviewDesk(args.run_dir, args.reviewer, args.second, args.audit, args.seed)
        if args.command == "sheet":
            for qa_id in desk.queue():
                print(json.dumps(desk.view(qa_id), ensure_ascii=False))
        elif args.command == "record":
            decisions = [{k: v for k, v in d.items() if v or k not in ("question", "answer")}  # empty: no edit
                         for d in pd.read_csv(args.decisions, dtype=str, keep_default_na=False).to_dict("records")]
            print(f"{desk.record_many(decisions)} of {len(decisions)} decisions changed a pair; "
                  f"{len(desk.queue())} pairs left", file=sys.stderr)
        else:
            print(json.dumps({**desk.progress(), "agreement": desk.agreement()["text"]}))
    except (ValueError, FileNotFoundError) as err:
        print(f"review_desk: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
