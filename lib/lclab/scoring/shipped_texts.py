"""The labelled texts the lab ships, by what a judge decides on them: the material of every judge's card.

    KINDS["answer_correct"].texts()          # key, label, cluster, and the fields its judge reads
    KINDS["answer_correct"].prompt(row)      # the exact prompt its judge is sent
    KINDS["answer_correct"].judge(spec, row) # the judge's Score on it

kind              what a label says                                 texts (data/)                       cluster
answer_correct    the response says what the reference says         judge_labels/answer_correct.csv     question
rag_relevance     the response addresses the question               judge_labels/rag_relevance.csv      question
rag_faithfulness  every claim of the response is in the passages    judge_labels/rag_faithfulness.csv   question
claim_support     the text (read with its question) entails the     nli_eval/hypothesis_labels.csv      item
                  claim                                              and items.jsonl

The maintainer wrote these labels (an AI coding agent, blind to every judge; the data READMEs say how). The
claim-support texts are 05's hypotheses, checked the way 06 checks a claim: the premise is the question and the
text the sentence comes from (the context, the ground truth or the answer), the hypothesis the labelled sentence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import pandas as pd

from ..paths import DATA
from .baselines import content_overlap
from .entailment import claim_prompt, p_claim_supported
from .judge_kinds import JUDGE_KINDS, JudgeKind
from .judges import JUDGE_MAX_TOKENS
from .labels import label_key
from .score import Score

SHIPPED = DATA / "judge_labels"  # the texts the repo ships, whatever label folder a session writes to

NLI_EVAL = DATA / "nli_eval"
# Which text of an NLI item a direction's hypotheses are checked against.
PREMISE_OF = {"context_answer": "context", "gt_answer": "ground_truth", "answer_gt": "answer"}


@dataclass(frozen=True)
class Kind:
    name: str
    what: str  # what a positive label says, for cards and tables
    texts: Callable[[], pd.DataFrame]  # key, label, cluster, and the judge's fields
    prompt: Callable[[object], str]  # the exact prompt its judge is sent for one text (a row of texts())
    judge: Callable[[str, object], Score]  # (judge spec, row) -> the verdict as a Score with its probability
    max_tokens: int  # of the judge's reply, for a plan
    baseline: str  # the judge-free score beside it
    baseline_score: Callable[[object], float | None]


def _label_file(name: str, fields: tuple[str, ...]) -> Callable[[], pd.DataFrame]:
    def texts() -> pd.DataFrame:
        from ..text.hand_tables import read_hand_table

        table = read_hand_table(SHIPPED / f"{name}.csv", ("key", "label", *fields), "judge label file")
        table = table[table["label"].str.strip().isin(["0", "1"])]
        return table.assign(label=table["label"].astype(int), cluster=table["question"].map(label_key))[
            ["key", "label", "cluster", *fields]].reset_index(drop=True)

    return texts


@lru_cache(maxsize=1)
def _claim_texts() -> pd.DataFrame:
    from ..text.hand_tables import read_hand_table

    items = {}
    for line in (NLI_EVAL / "items.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            items[item["item_id"]] = item
    labels = read_hand_table(NLI_EVAL / "hypothesis_labels.csv",
                             ("item_id", "direction", "index", "sentence", "entailed"), "hypothesis label file")
    rows = []
    for r in labels.itertuples(index=False):
        item = items[r.item_id]
        premise = item[PREMISE_OF[r.direction]]
        rows.append({"key": label_key(item["question"], premise, r.sentence), "label": int(r.entailed),
                     "cluster": r.item_id, "question": item["question"], "premise": premise, "claim": r.sentence,
                     "direction": r.direction})
    # Grouped by premise, as 06 orders its checks: a premise is read once into llama.cpp's KV cache.
    return pd.DataFrame(rows).sort_values(["cluster", "direction"], kind="stable").reset_index(drop=True)


def _claim_verdict(judge: str, r) -> Score:
    got = p_claim_supported(judge, r.question, r.premise, r.claim, stage="judge card")
    if got.score is None:
        return Score(None, got.answer, metadata={"p": None, "source": got.source}, unscored=got.unscored)
    return Score(got.score >= 0.5, got.answer, metadata={"p": got.score, "source": got.source,
                                                          "mass_outside": got.mass_outside})


def _item(row) -> dict:
    """A labelled text (a row of texts(), as a tuple or a Series) by its field names."""
    return row._asdict() if hasattr(row, "_asdict") else dict(row)


@lru_cache(maxsize=None)
def _judged(k: JudgeKind) -> Kind:
    """A judge kind's labelled texts, read as its run reads an item (lclab.scoring.judge_kinds)."""
    return Kind(k.kind, k.means, _label_file(k.kind, k.fields), lambda r: k.prompt(_item(r)),
                lambda j, r: k.judge(j, _item(r), stage="judge card"), JUDGE_MAX_TOKENS, k.baseline,
                lambda r: k.baseline_score(_item(r)))


CLAIM_SUPPORT = Kind("claim_support", "the text, read with its question, entails the claim", _claim_texts,
                     lambda r: claim_prompt(r.question, r.premise, r.claim), _claim_verdict, 1,
                     "claim words in the text", lambda r: content_overlap(r.claim, r.premise))


class _Shipped(Mapping):
    """Every kind of shipped texts by name: each judge kind's (read from lclab.scoring.judge_kinds when asked, so
    a kind registered after import has its texts too) and the claim-support texts."""

    def _all(self) -> dict:
        return {**{name: _judged(k) for name, k in JUDGE_KINDS.items()}, CLAIM_SUPPORT.name: CLAIM_SUPPORT}

    def __getitem__(self, name: str) -> Kind:
        return self._all()[name]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


KINDS = _Shipped()
