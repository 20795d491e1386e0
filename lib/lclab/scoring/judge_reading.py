"""How a run reads its judge: who judged, what the judge's shipped card says, and the rates it may print.

    reading = read_judge(choose_judge(model, judge_model), "answer_correct", card_texts=40)
    reading.judge.spec       # who judges (never the model under test by default: judge_choice.py)
    reading.informative      # the card's AUC and J intervals clear chance
    items = reading.read_items(items, "judge_correct")  # verdicts at the card's cross-validated threshold
    reading.rate(verdicts, clusters, labels, probabilities)   # the number a headline may quote, and how it was read
    reading.difference(effect, lo, hi, n_clusters)  # a paired difference of judged rates, corrected

What a headline reads (never the raw judge): where every judged item is labelled, the labels' own rate (the judge
then has nothing to add); PPI++ from the run's own random labels once it has MIN_LABELS of them (no assumption on
the judge), else the rate corrected by the shipped card (Rogan–Gladen, which assumes the
shipped texts are like this run's), and where the card says the judge cannot tell right from wrong, no judged
number at all: "judge uninformative on <kind>", and the judge-free number where the experiment has one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..stats.card import card_corrected_difference, card_corrected_rate
from ..stats.cluster_ppi import cluster_ppi
from ..stats.clusters import cluster_mean_ci
from .judge_card import CARD_COLUMNS, judge_card
from ..models.judge_choice import Judge

MIN_LABELS = 10  # a run's own labels: from this many on, its headline reads PPI++
CARD_ASSUMPTION = "corrected by the shipped card (Rogan–Gladen; assumes the shipped texts are like this run's)"


@dataclass(frozen=True)
class Reading:
    kind: str
    judge: Judge
    card: dict

    @property
    def informative(self) -> bool:
        return bool(self.card.get("informative"))

    @property
    def uninformative_note(self) -> str:
        return f"judge uninformative on {self.kind}"

    @property
    def line(self) -> str:
        """The judge's name and its card: what every judged table and figure carries."""
        return f"judge {self.judge.label}; {self.card['line']}"

    @property
    def threshold(self) -> float:
        """The judge's probability at or above which a verdict reads 1: the card's cross-validated choice."""
        cut = self.card.get("threshold")
        return float(cut) if cut is not None and cut == cut else 0.5

    def verdicts(self, items: pd.DataFrame, column: str) -> pd.Series:
        """A run's verdicts in `column` read at the card's threshold on the judge's probability (`<column>_p`),
        where there is one; the judge's own verdict where it gave none (a sampled token), None where unscored."""
        p = f"{column}_p"
        if column not in items or p not in items:
            return items[column] if column in items else pd.Series(dtype=object)
        probability = pd.to_numeric(items[p], errors="coerce")
        known = items[column].notna() & probability.notna()
        return items[column].astype(object).where(~known, probability >= self.threshold)

    def read_items(self, items: pd.DataFrame, column: str) -> pd.DataFrame:
        """`items` with `column` read at the card's threshold (`verdicts`), the judge's own verdict kept beside
        it as `<column>_at_0.5`: every rate, effect and correction of the run then reads the verdicts the card
        measured."""
        if column not in items or f"{column}_p" not in items:
            return items
        return items.assign(**{f"{column}_at_0.5": items[column], column: self.verdicts(items, column)})

    def rate(self, verdicts, clusters, labels=None, probabilities=None) -> dict:
        """The judged rate as a headline may quote it: estimate, lo, hi, how it was read (`read_as`), and the
        raw judge's rate beside it for the record. PPI++ predicts each label from the judge's probability
        (`probabilities`, where given; the verdict where not), the card's correction from the verdicts."""
        v = pd.Series(list(verdicts), dtype=object).map(lambda x: np.nan if x is None or pd.isna(x) else float(x))
        f = v if probabilities is None else pd.Series(pd.to_numeric(pd.Series(list(probabilities)),
                                                                    errors="coerce").to_numpy(), index=v.index)
        f = f.where(f.notna() & v.notna(), v)
        c = pd.Series(list(clusters)).astype(str)
        raw = float(v.mean()) if v.notna().any() else math.nan
        out = {"raw": raw, "n_items": int(v.notna().sum()), "n_clusters": int(c[v.notna()].nunique())}
        y = pd.Series(list(labels), dtype=float) if labels is not None else pd.Series(np.nan, index=v.index)
        judged = v.notna().to_numpy()
        n_labels = int((judged & y.notna().to_numpy()).sum())
        if n_labels and n_labels == out["n_items"]:  # every judged item labelled: PPI++ has nothing to correct
            got = cluster_mean_ci(y[judged].to_numpy(), c[judged].to_numpy())
            return out | {"estimate": got["mean"], "lo": got["lo"], "hi": got["hi"], "interval": "labels, cluster t",
                          "read_as": f"the labels' own rate: all {n_labels} judged items labelled (cluster t)"}
        if not self.informative:
            return out | {"estimate": math.nan, "lo": math.nan, "hi": math.nan, "read_as": self.uninformative_note,
                          "interval": None}
        if n_labels >= MIN_LABELS:
            got = cluster_ppi(y[judged].to_numpy(), f[judged].to_numpy(), c[judged].to_numpy())
            if got["ppi"] == got["ppi"]:
                return out | {"estimate": got["ppi"], "lo": got["lo"], "hi": got["hi"],
                              "interval": "PPI++, cluster bootstrap-t",
                              "read_as": f"PPI++ from {n_labels} labels of this run and the judge's "
                                         f"{'probability' if probabilities is not None else 'verdict'} "
                                         "(cluster bootstrap-t)"}
        got = card_corrected_rate(v, c, self.card)
        return out | {"estimate": got["corrected"], "lo": got["corrected_lo"], "hi": got["corrected_hi"],
                      "interval": "card, Rogan–Gladen delta method", "read_as": CARD_ASSUMPTION}

    def difference(self, effect: float, lo: float, hi: float, n_clusters: int) -> dict:
        """A paired difference of two judged rates (a t interval over `n_clusters` clusters), corrected by the
        card (a judge shrinks every true difference by J); NaN when the judge is uninformative."""
        from scipy import stats

        if not self.informative or n_clusters < 2 or not hi == hi:
            return {"corrected": math.nan, "corrected_lo": math.nan, "corrected_hi": math.nan}
        se = (hi - lo) / 2 / float(stats.t.ppf(0.975, n_clusters - 1))
        return card_corrected_difference(effect, se, n_clusters - 1, self.card)

    def cell_rates(self, items: pd.DataFrame, by: list[str], column: str, cluster: str,
                   labels: pd.Series | None = None) -> pd.DataFrame:
        """Per cell of `by`: the rate of `column` as `rate` reads it (`labels`, aligned with `items`: the labels'
        own rate where the cell is all labelled, PPI++ with enough, else the card), with its interval
        (`corrected`, `_lo`, `_hi`) and which interval that is (`corrected_interval`, what a figure's legend names);
        NaN where the judge is uninformative and the cell is not all labelled."""
        rows = []
        for key, part in items.groupby(by, sort=True) if column in items and len(items) else []:
            got = self.rate(part[column], part[cluster], None if labels is None else labels.loc[part.index],
                            part.get(f"{column}_p"))
            rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))),
                         "corrected": got["estimate"], "corrected_lo": got["lo"], "corrected_hi": got["hi"],
                         "corrected_interval": got["interval"]})
        return pd.DataFrame(rows, columns=[*by, "corrected", "corrected_lo", "corrected_hi", "corrected_interval"])

    def table(self) -> pd.DataFrame:
        """The card as a one-row table (`judge_card.csv` in a run folder), with who judged and how chosen."""
        return pd.DataFrame([{**{c: self.card.get(c) for c in CARD_COLUMNS}, "judge": self.judge.label,
                              "self_judged": self.judge.self_judged, "chosen": self.judge.why}])


def read_judge(judge: Judge, kind: str, card_texts: int = 0, progress: bool = True) -> Reading:
    """The judge a run chose (judge_choice.choose_judge, once per run) with its card on `kind`'s shipped texts (all
    of them, or `card_texts`)."""
    return Reading(kind, judge, judge_card(judge.spec, kind, card_texts or None, progress))
