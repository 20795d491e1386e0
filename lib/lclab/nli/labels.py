"""The labelled set of the NLI evaluation: items (JSONL) and the hand-made hypothesis and refusal labels.

Labels attach to the hypothesis sentences as sentence conversion makes them
(before pronoun replacement); a label whose sentence text no longer matches is
an error, never a silent shift onto a neighbouring sentence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..paths import repo_path
from ..text.hand_tables import read_hand_table
from .items import DIRECTIONS, EvalItem, prepare

ITEM_FIELDS = ("item_id", "context", "question", "ground_truth", "answer")
HYPOTHESIS_COLUMNS = ("item_id", "direction", "index", "sentence", "entailed")
REFUSAL_COLUMNS = ("item_id", "text", "refusal")


def load_items(path: str | Path) -> list[EvalItem]:
    """Items from a JSONL file: item_id, context, question, ground_truth, answer (strings); document optional.

    An empty answer or ground truth is allowed (the run reports it); a missing
    field, a non-string value or a repeated id is an error naming the line.
    """
    path = repo_path(path)
    if not path.exists():
        raise FileNotFoundError(f"item file {path} does not exist")
    items, seen, problems = [], set(), []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(f"line {n}: not JSON ({err.msg})")
            continue
        bad = [f for f in ITEM_FIELDS if not isinstance(obj.get(f), str)]
        if bad:
            problems.append(f"line {n} ({obj.get('item_id', '?')}): missing or non-string {bad}")
            continue
        if obj["item_id"] in seen:
            problems.append(f"line {n}: item_id {obj['item_id']!r} repeats an earlier line")
        seen.add(obj["item_id"])
        items.append(EvalItem(**{f: obj[f] for f in ITEM_FIELDS}, document=str(obj.get("document") or "")))
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    if not items:
        raise ValueError(f"{path} holds no items")
    return items


@dataclass(frozen=True)
class Labels:
    hypotheses: pd.DataFrame  # item_id, direction, index, sentence, entailed (0/1)
    refusals: pd.DataFrame  # item_id, text ("answer" / "ground_truth"), refusal (0/1)


def _binary(df: pd.DataFrame, column: str, path: Path) -> pd.Series:
    bad = [f"row {i + 2} ({r['item_id']}): {column} {r[column]!r}" for i, r in df.iterrows()
           if r[column].strip() not in ("0", "1")]
    if bad:
        raise ValueError(f"{path}: {column} must be 0 or 1: " + "; ".join(bad[:10]))
    return df[column].str.strip().astype(int)


def load_labels(directory: str | Path, items: list[EvalItem], language: str = "english") -> Labels:
    """hypothesis_labels.csv and refusal_labels.csv, checked against the items' sentences."""
    directory = repo_path(directory)
    hyp_path, ref_path = directory / "hypothesis_labels.csv", directory / "refusal_labels.csv"
    hyp = read_hand_table(hyp_path, HYPOTHESIS_COLUMNS, "hypothesis label file")
    ref = read_hand_table(ref_path, REFUSAL_COLUMNS, "refusal label file")
    hyp["entailed"] = _binary(hyp, "entailed", hyp_path)
    ref["refusal"] = _binary(ref, "refusal", ref_path)

    texts = {}
    for it in items:
        p = prepare(it, language)
        texts[it.item_id] = {"context_answer": p.answer_raw, "gt_answer": p.answer_raw, "answer_gt": p.gt_raw}
    problems = []
    for i, r in hyp.iterrows():
        where = f"row {i + 2} ({r['item_id']}, {r['direction']}, {r['index']})"
        if r["item_id"] not in texts:
            problems.append(f"{where}: no such item")
        elif r["direction"] not in DIRECTIONS:
            problems.append(f"{where}: direction must be one of {DIRECTIONS}")
        elif not r["index"].isdigit() or int(r["index"]) >= len(texts[r["item_id"]][r["direction"]]):
            problems.append(f"{where}: the hypothesis has {len(texts[r['item_id']][r['direction']])} sentences")
        elif texts[r["item_id"]][r["direction"]][int(r["index"])] != r["sentence"]:
            problems.append(f"{where}: the labelled sentence {r['sentence']!r} is not the item's sentence "
                            f"{texts[r['item_id']][r['direction']][int(r['index'])]!r} (was the item edited?)")
    bad_ref = [f"row {i + 2} ({r['item_id']})" for i, r in ref.iterrows()
               if r["item_id"] not in texts or r["text"] not in ("answer", "ground_truth")]
    if bad_ref:
        problems.append(f"{ref_path.name}: unknown item or text (answer / ground_truth) in " + ", ".join(bad_ref))
    if problems:
        raise ValueError(f"{hyp_path}: " + "; ".join(problems[:10]))
    hyp["index"] = hyp["index"].astype(int)
    if hyp.duplicated(["item_id", "direction", "index"]).any():
        raise ValueError(f"{hyp_path}: a hypothesis is labelled twice")
    return Labels(hyp, ref)
