"""The labelling desk's logic: a random draw of one run's judged texts, shown one at a time without the judge's
verdict, each label appended to the lab's label file the moment it is given (a closed browser loses nothing).

The draw is `lclab.scoring.labelling.draw` over every item of the run (labelled or not, so it stays the same as
labels are added): each item has the same chance, spread over the clusters, as PPI++ and Rogan–Gladen need.
Items already labelled (by this desk or by hand) are passed over; a skip is kept in the run folder
(`desk_skips_<kind>.csv`) so the next visit does not show the item again. A label or skip given twice (a double
key press) is filed once; the last one given can be undone. The second labeller's pass draws, the same way, from
the run's texts the first labeller labelled, shows them without their labels, writes to
data/judge_labels/second_labeller/ and reports the two labellers' κ on the run's texts (or why there is none yet).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..planning.design import PRIOR_JUDGE, ppi_half_width
from ..recoveries import appending
from ..scoring import labels as label_files
from ..scoring.labellers import labeller_agreement
from ..scoring.judge_kinds import JUDGE_KINDS
from ..scoring.labelling import KINDS, draw, sheet
from ..text.hand_tables import read_hand_table

TARGET_HALF_WIDTH = 0.10  # what the desk counts labels towards, as --plan's default --target
# What a label of 1 and of 0 means, per kind, on the desk's buttons, and the rule each kind is labelled by, shown
# above every text: each judge kind's own (lclab.scoring.judge_kinds).
def meanings(kind: str) -> tuple[str, str]:
    return JUDGE_KINDS[kind].buttons


def rule(kind: str) -> str:
    return JUDGE_KINDS[kind].rule


@dataclass(frozen=True)
class Desk:
    """One labelling session: `kind` of texts (lclab.scoring.labelling.KINDS) from `run_dir`, `n` drawn."""

    run_dir: Path
    kind: str
    n: int = 30
    seed: int = 0
    second: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; known: {', '.join(KINDS)}")
        if self.n < 1:
            raise ValueError(f"n must be at least 1 (got {self.n})")

    @property
    def label_file(self) -> Path:
        folder = label_files.LABELS / "second_labeller" if self.second else label_files.LABELS
        return folder / f"{self.kind}.csv"

    @property
    def skip_file(self) -> Path:
        return Path(self.run_dir) / f"desk_skips_{self.kind}{'_second' * self.second}.csv"

    def drawn(self) -> pd.DataFrame:
        """The texts of this session, in the order they are shown: `n` of the run's judged texts (for the second
        labeller, of those the first labeller labelled)."""
        texts = sheet(self.kind, Path(self.run_dir), include_labelled=True)
        if self.second:
            first = label_files.LABELS / f"{self.kind}.csv"
            texts = texts[texts["key"].isin(self._keys(first))]
            if texts.empty:
                raise FileNotFoundError(f"no text of this run has a first label of kind {self.kind} yet: the second "
                                        "labeller relabels the texts the first labeller labelled, so label some first")
        return draw(texts, self.n, self.seed)

    def _keys(self, path: Path) -> set[str]:
        return set(read_hand_table(path, ("key",), "label file")["key"]) if path.exists() else set()

    def next_item(self) -> dict | None:
        """The next text to label (its key and the kind's fields, never a verdict), or None when all are done."""
        done = self._keys(self.label_file) | self._keys(self.skip_file)
        for record in self.drawn().to_dict("records"):
            if record["key"] not in done:
                return {k: record[k] for k in ("key", *KINDS[self.kind], "answerable") if k in record}
        return None

    def progress(self) -> dict:
        """How far the session is, and what its labels buy: the planned PPI++ half-width of the run's judged rate
        with the labels given so far, and how many labels reach ±0.10."""
        drawn = self.drawn()
        keys = set(drawn["key"])
        labelled = len(keys & self._keys(self.label_file))
        skipped = len(keys & self._keys(self.skip_file) - self._keys(self.label_file))
        judged = len(sheet(self.kind, Path(self.run_dir), include_labelled=True))
        out = {"drawn": len(drawn), "labelled": labelled, "skipped": skipped,
               "left": len(drawn) - labelled - skipped, "judged": judged}
        if self.second:
            return out | self.agreement(drawn)
        if judged > 2:
            out["half_width"] = ppi_half_width(judged, max(labelled, 2), **PRIOR_JUDGE)
            out["needed"] = next((n for n in range(2, judged) if ppi_half_width(judged, n, **PRIOR_JUDGE)
                                  <= TARGET_HALF_WIDTH), None)
            if out["needed"] is None:  # out of this run's reach: said, not left out
                out["at_most"] = ppi_half_width(judged, judged - 1, **PRIOR_JUDGE)
        return out

    def agreement(self, drawn: pd.DataFrame) -> dict:
        """The two labellers' κ on this run's drawn texts both labelled, and why there is none where κ is NaN."""
        got = labeller_agreement(self.kind, keys=drawn["key"], clusters=drawn.set_index("key")["cluster"])
        n = got["labellers_n"]
        if n == 0:
            why = "no drawn text of this run has both labellers' labels yet"
        elif got["labellers_kappa"] != got["labellers_kappa"]:
            why = (f"on {n} text{'s' * (n != 1)} both labelled, one labeller gave every text the same label, and κ "
                   "is undefined until each has used both labels (1 and 0)")
        elif got["labellers_kappa_lo"] != got["labellers_kappa_lo"]:
            why = f"too few texts ({n}) for its bootstrap interval"
        else:
            why = None
        return {"kappa": got, "kappa_why": why}

    def record(self, key: str, label: str, note: str = "", source: str = "") -> bool:
        """Append one label (1 or 0) to the label file, or a skip to the run's skip file, at once. A text
        labelled or skipped already (a double key press posts twice) is left as filed: returns False then."""
        item = next((r for r in self.drawn().to_dict("records") if r["key"] == key), None)
        if item is None:
            raise KeyError(f"{key!r} is not a text of this session")
        if label not in ("0", "1", "skip"):
            raise ValueError(f"a label is 1 or 0 (or skip), not {label!r}")
        if key in self._keys(self.label_file) | self._keys(self.skip_file):
            return False
        if label == "skip":
            _append(self.skip_file, ["key", "note"], {"key": key, "note": note})
            return True
        columns = ["key", "label", *KINDS[self.kind], "note", "blind" if self.second else "source"]
        row = {**item, "label": label, "note": note, "blind": "yes", "source": source}
        _append(self.label_file, _header(self.label_file) or columns, row)
        return True

    def filed(self, key: str) -> str | None:
        """What this session filed for `key`: its label ("1", "0"), "skip", or None."""
        for path in (self.label_file, self.skip_file):
            if path.exists():
                table = read_hand_table(path, ("key",), "label file")
                found = table[table["key"] == key]
                if len(found):
                    return found["label"].iloc[-1] if "label" in found else "skip"
        return None

    def undo(self, key: str, source: str = "") -> str | None:
        """Take back the label (or skip) given to `key` in this session: its row is removed from the label file
        (only a row this desk wrote for the run, `source`, in the first labeller's file) or the skip file.
        Returns what was undone, or None."""
        if key not in set(self.drawn()["key"]):
            raise KeyError(f"{key!r} is not a text of this session")
        was = self.filed(key)
        if was == "skip":
            _remove(self.skip_file, key)
        elif was is not None:
            if not self.second and _row(self.label_file, key).get("source") != source:
                raise ValueError("that label was not given at this desk for this run, so the desk leaves it: "
                                 "edit the label file by hand to change it")
            _remove(self.label_file, key)
        return was


def _header(path: Path) -> list[str] | None:
    if not path.exists() or not path.stat().st_size:
        return None
    with open(path, newline="", encoding="utf-8") as fh:
        return next(csv.reader(fh), None)


def _row(path: Path, key: str) -> dict:
    with open(path, newline="", encoding="utf-8") as fh:
        return next((r for r in csv.DictReader(fh) if r.get("key") == key), {})


def _remove(path: Path, key: str) -> None:
    """`path` written again without the rows filed under `key` (to a temporary file, then moved into place)."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    partial = path.with_name(f".{path.name}.undo")
    with open(partial, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerows([rows[0], *(r for r in rows[1:] if r and r[0] != key)])
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(partial, path)


def _fields(line: bytes) -> int:
    return len(next(csv.reader([line.decode("utf-8", errors="replace")]), []))


def _append(path: Path, columns: list[str], row: dict) -> None:
    """One CSV row added to `path` and flushed to disk (the header first for a new file)."""
    # A last row a text editor saved without its newline is whole (all its fields) and kept; one a kill cut short
    # is moved aside (recoveries.repair_tail), so the new row never joins it.
    with appending(path, whole=lambda last: _fields(last) == len(columns), newline="") as fh:
        new = not path.stat().st_size
        writer = csv.DictWriter(fh, columns, extrasaction="ignore", lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow({c: row.get(c, "") for c in columns})
        fh.flush()
        os.fsync(fh.fileno())
