"""The review by reading of generated QA pairs (seed §2): the review file and the pairs marked yes.

The review file is a CSV with one row per pair. Its `validated` column is
empty after generation; a person fills it with yes/no after reading the source,
and every later run uses only the rows marked yes.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from ..paths import repo_path
from ..text.corpus import Corpus, Document, load_corpus, passage_sha1, passages

REVIEW_COLUMNS = ["qa_id", "doc_id", "passage_chars", "passage_sha1", "question", "answer",
                  "answer_in_source", "llm_supported", "validated", "review_note"]
# The review file's columns after REVIEW_COLUMNS (docs/QA review contract, issue #89); checks_<name> follow.
REVIEW_FILE_COLUMNS = REVIEW_COLUMNS + ["review_reason", "reviewer", "reviewed_at", "original_question",
                                        "original_answer", "title", "heading", "passage", "answer_start", "flags",
                                        "batch"]
# Why a reviewer rejects a pair (the QA desk's reason keys 1-7, in this order).
REASONS = ["answer_in_question", "not_self_contained", "wrong_answer", "not_factoid", "heading_or_boilerplate",
           "duplicate", "other"]
_YES, _NO = {"yes", "y", "true", "1"}, {"no", "n", "false", "0"}


def read_qa_file(path: str | Path) -> pd.DataFrame:
    """A review CSV as make_qa_set writes it (possibly edited by hand), checked for shape."""
    path = repo_path(path)
    df = pd.read_csv(path, dtype={"validated": str, "review_note": str}, keep_default_na=False)
    missing = set(REVIEW_COLUMNS) - set(df.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    if df.empty:
        raise ValueError(f"{path}: no QA pairs")
    if df["passage_chars"].nunique() != 1:
        raise ValueError(f"{path}: all pairs must come from one passage split (one passage_chars value)")
    review_marks(df, path)
    df.attrs["path"] = str(path)
    return df


def review_marks(df: pd.DataFrame, where) -> pd.Series:
    """The `validated` column as "yes" / "no" / "" per row; any other value is an error naming the rows."""
    marks = df["validated"].str.strip().str.lower()
    bad = df[~marks.isin(_YES | _NO | {""})]
    if len(bad):
        raise ValueError(f"{where}: `validated` must be yes/no/empty; rows {bad['qa_id'].tolist()} have other values")
    return marks.map(lambda m: "yes" if m in _YES else "no" if m in _NO else "")


def validated_pairs(df: pd.DataFrame, passages_by_id: dict[str, Document], allow_unreviewed: bool = False) -> pd.DataFrame:
    """The pairs marked `validated = yes`, checked against the passages they came from.

    A file nobody has reviewed yet is refused unless `allow_unreviewed`, in which
    case the pairs that passed an automatic check are used and the caller should say so.
    """
    where = df.attrs.get("path", "QA file")
    marks = review_marks(df, where)
    if (marks != "").any():
        df = df[marks == "yes"]
    elif allow_unreviewed:
        auto = df[["answer_in_source", "llm_supported"]].astype(str).apply(lambda c: c.str.lower().isin(_YES))
        df = df[auto.any(axis=1)]
    else:
        raise ValueError(f"{where} has not been reviewed: mark each row's `validated` column yes or no")
    stale = [r.qa_id for r in df.itertuples() if r.doc_id not in passages_by_id
             or passage_sha1(passages_by_id[r.doc_id].text) != r.passage_sha1]
    if stale:
        raise ValueError(f"{where}: the passages of {stale} no longer match the corpus "
                         "(different corpus, files or passage_chars); regenerate or re-review them")
    return df.reset_index(drop=True)


def load_validated(corpus: str, qa_path: str, n_qa: int) -> tuple[Corpus, list[Document], pd.DataFrame]:
    """The corpus, its passages cut the way the QA file's pairs were made, and the first n_qa validated pairs."""
    loaded = load_corpus(corpus)
    qa_file = read_qa_file(qa_path)
    pool = passages(loaded, int(qa_file["passage_chars"].iloc[0]))
    pairs = validated_pairs(qa_file, {p.id: p for p in pool})
    if len(pairs) < n_qa:
        # Said in the plan and in the run (a notebook shows warnings in its output), never silently fewer.
        warnings.warn(f"{qa_path}: n_qa is {n_qa} but only {len(pairs)} pairs are validated (marked yes): the run "
                      f"uses {len(pairs)}. Validate more pairs (00_make_qa_set, then the review sheet) or lower n_qa",
                      FewerPairsWarning, stacklevel=2)
    return loaded, pool, pairs.head(n_qa)


class FewerPairsWarning(UserWarning):
    """A run asked for more validated QA pairs than its QA file holds."""
