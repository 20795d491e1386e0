"""Label a run's judged items by hand, blind to the judge: a sheet without verdicts, to fill and then append
to data/judge_labels/<kind>.csv, where the reliability cards of every later run find them.

    python -m lclab.scoring.labelling answer_correct results/depth_sweep/default   # writes label_answer_correct.csv there
    python -m lclab.scoring.labelling answer_correct results/depth_sweep/default --n 60   # a random 60 of them

Kinds (lclab.scoring.judge_kinds), and the item fields a label is filed under (white space aside):

    answer_correct    question, reference, response          (01, 02: reference = gold; 06: reference)
    rag_relevance     question, response                     (06)
    rag_faithfulness  question, response, passages           (06)

The sheet holds those fields, the item's cluster, an empty `label` (1 or 0) and
`note`; items already labelled are left out. It never holds a judge's verdict:
label first, then let the card join. With `--n`, the sheet is a random subset
(`draw`): every item has the same chance to be drawn, so the labels are what
PPI++ and Rogan–Gladen need (lclab.stats.corrected), and the draw is spread over
the clusters (a systematic sample over the items ordered cluster by cluster).

A second labeller works from the same texts without the first labels, then the two are compared:

    python -m lclab.scoring.labelling rag_relevance --second          # the labelled texts, no labels shown
    #   fill `label`, set `blind` (yes/no), append the rows to data/judge_labels/second_labeller/rag_relevance.csv
    python -m lclab.scoring.labelling rag_relevance --agreement       # κ of the two labellers with its 95 % CI
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..runs.folders import ItemLog
from ..text.hand_tables import read_hand_table
from .judge_kinds import JUDGE_KINDS
from .labellers import SECOND, labeller_agreement, second_labels
from .labels import LABELS, load_labels, row_key, unanswerable

class _LabelFields(Mapping):
    """Each judge kind's label fields by its name (lclab.scoring.judge_kinds, read when asked: a kind added later
    is known). A sheet holds only the texts its kind's judge gave a verdict on (its column), the texts its card
    counts (read to choose the rows, never shown); a run without the column has no card of that kind."""

    def __getitem__(self, kind: str) -> tuple[str, ...]:
        return JUDGE_KINDS[kind].fields

    def __iter__(self):
        return iter(JUDGE_KINDS)

    def __len__(self) -> int:
        return len(JUDGE_KINDS)


KINDS = _LabelFields()


def hidden_columns() -> tuple[str, ...]:
    """The column prefixes never shown on a sheet: every judge kind's verdict and reply key, the string match."""
    return ("judge", "string_match", "error") + tuple(n for k in JUDGE_KINDS.values() for n in (k.column, k.key))


def sheet(kind: str, run_dir: Path, include_labelled: bool = False) -> pd.DataFrame:
    """The unlabelled items of one run folder as a labelling sheet for `kind` (every item, with
    `include_labelled`: a draw that stays the same as labels are added)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    rows = ItemLog(Path(run_dir) / "items.jsonl", ()).rows()
    if not rows:
        raise FileNotFoundError(f"no items in {run_dir}/items.jsonl")
    items = pd.DataFrame(rows)
    items = items[items["response"].notna()] if "response" in items else items.iloc[:0]
    verdict = JUDGE_KINDS[kind].column
    if verdict not in items:
        raise ValueError(f"{run_dir}: its items have no {verdict!r} verdicts, so no card of this run reads kind "
                         f"{kind!r}")
    items = items[items[verdict].notna()]
    if "reference" not in items and "gold" in items:
        items = items.assign(reference=items["gold"])
    fields = KINDS[kind]
    missing = [f for f in fields if f not in items]
    if missing:
        raise ValueError(f"{run_dir}: its items have no {missing}: kind {kind!r} does not apply to this experiment")
    out = items[list(fields)].copy()
    out["cluster"] = next((items[c].astype(str) for c in ("cluster", "qa_id", "id") if c in items),
                          pd.Series(range(len(items)), index=items.index).astype(str))
    if "answerable" in items:  # part of the key (labels.row_key), and shown to the labeller
        out["answerable"] = items["answerable"].map(lambda v: "no" if unanswerable({"answerable": v}) else "yes")
    out.insert(0, "key", [row_key({**r, "answerable": r.get("answerable") != "no"}, fields) for _, r in out.iterrows()])
    out = out.drop_duplicates("key")
    done = set(load_labels(kind).index) if (LABELS / f"{kind}.csv").exists() and not include_labelled else set()
    out = out[~out["key"].isin(done)]
    assert not any(c.startswith(hidden_columns()) for c in out.columns)  # blind by construction
    return out.assign(label="", note="").reset_index(drop=True)


def draw(table: pd.DataFrame, n: int, seed: int = 0) -> pd.DataFrame:
    """`n` rows of a sheet at random, each with the same chance, spread over the clusters: the rows ordered
    cluster by cluster (clusters and rows within them shuffled), then every (len / n)-th from a random start."""
    if n >= len(table):
        return table.sample(frac=1, random_state=seed).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    order = pd.Series(rng.permutation(table["cluster"].unique())).reset_index().set_index(0)["index"]
    shuffled = table.assign(_c=table["cluster"].map(order), _r=rng.random(len(table))).sort_values(["_c", "_r"])
    step = len(table) / n
    picks = np.floor(rng.uniform(0, step) + step * np.arange(n)).astype(int)
    return shuffled.iloc[picks].drop(columns=["_c", "_r"]).reset_index(drop=True)


def second_sheet(kind: str) -> pd.DataFrame:
    """The texts of data/judge_labels/<kind>.csv the second labeller has not labelled, without the first labels."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; known: {', '.join(KINDS)}")
    texts = read_hand_table(LABELS / f"{kind}.csv", ("key", *KINDS[kind]), "judge label file")
    done = second_labels(kind)
    if done is not None:
        texts = texts[~texts["key"].isin(done.index)]
    # Shuffled, so the order the first labeller wrote them in (drawn texts first, constructed after) says nothing.
    texts = texts[["key", *KINDS[kind]]].sample(frac=1, random_state=0)
    return texts.assign(label="", note="", blind="yes").reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lclab.scoring.labelling", description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("run_dir", nargs="?", help="a run folder, e.g. results/depth_sweep/default")
    parser.add_argument("--out", help="where to write the sheet (default: <run_dir>/label_<kind>.csv)")
    parser.add_argument("--n", type=int, help="a random subset of this many items, spread over the clusters")
    parser.add_argument("--seed", type=int, default=0, help="the draw's seed (default 0)")
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--second", action="store_true", help="a second labeller's sheet of the labelled texts")
    how.add_argument("--agreement", action="store_true", help="print the two labellers' κ")
    args = parser.parse_args(argv)
    if args.agreement:
        got = labeller_agreement(args.kind)
        if got["labellers_n"] == 0 or got["labellers_kappa"] != got["labellers_kappa"]:
            why = ("no text has both labellers' labels" if got["labellers_n"] == 0 else
                   "one labeller gave every text the same label, and κ is undefined until each has used both")
            print(f"{args.kind}: two labellers, {got['labellers_n']} texts, no κ: {why}")
            return 0
        print(f"{args.kind}: two labellers, {got['labellers_n']} texts, κ {got['labellers_kappa']:.2f} "
              f"[{got['labellers_kappa_lo']:.2f}, {got['labellers_kappa_hi']:.2f}]")
        return 0
    if not args.second and not args.run_dir:
        parser.error("a run folder is needed (or --second / --agreement)")
    try:
        table = second_sheet(args.kind) if args.second else sheet(args.kind, Path(args.run_dir))
        table = draw(table, args.n, args.seed) if args.n and not args.second else table
    except (ValueError, FileNotFoundError) as err:
        print(f"labelling: {err}", file=sys.stderr)
        return 2
    target = SECOND / f"{args.kind}.csv" if args.second else LABELS / f"{args.kind}.csv"
    default = f"second_{args.kind}.csv" if args.second else Path(args.run_dir) / f"label_{args.kind}.csv"
    out = Path(args.out or default)
    table.to_csv(out, index=False)
    print(f"{len(table)} items to label -> {out}; fill `label` (1/0), then append the rows to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
