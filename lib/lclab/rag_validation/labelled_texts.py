"""The relevance and faithfulness judges read against labelled texts of both classes.

A run's own answers are mostly on topic (42 of 43 relevant in the documented run), so a card over them
alone cannot measure κ or AUC: one negative item decides both. The label files also hold texts drawn
deliberately (answers to another question, bare refusals, added facts, swapped names and numbers; see
data/judge_labels/README.md), and this step has the run's judge read every labelled text of both files, so
each 06 run has a card whose labels hold both classes, whatever its answers were. A user's own labelled
texts, appended to the same files, are read too.
"""

from __future__ import annotations

import pandas as pd

from ..prompts import render
from ..runs.folders import fingerprint
from ..runs.runner import Run, Step
from ..runs.samples import Sample
from ..scoring.baselines import content_overlap
from ..scoring.judges import JUDGE, judge_faithfulness, judge_relevance
from ..scoring.labels import LABELS
from ..scoring.reliability import judged_card
from ..text.hand_tables import read_hand_table

# judge column -> (label file, the fields a label is filed under, card metric, judge-free baseline)
FILES = {
    "relevant": ("rag_relevance", ("question", "response"), "answer relevance (06, labelled texts)",
                 "question words in the response", lambda r: content_overlap(r["question"], r["response"])),
    "faithful": ("rag_faithfulness", ("question", "response", "passages"), "faithfulness (06, labelled texts)",
                 "response words in the passages", lambda r: content_overlap(r["response"], r["passages"])),
}
STAGE = "judge, labelled texts"


def labelled_texts() -> pd.DataFrame:
    """Every labelled text of both files: judge (column), key, question, response, passages ("" for relevance)."""
    parts = []
    for column, (name, fields, *_) in FILES.items():
        table = read_hand_table(LABELS / f"{name}.csv", ("key", *fields), "judge label file")
        parts.append(table[["key", *fields]].assign(judge=column))
    return pd.concat(parts, ignore_index=True).fillna({"passages": ""})


def labelled_samples() -> list[Sample]:
    """Every labelled text as a Sample whose input is the exact prompt its judge is sent (the run's, the plan's)."""
    return [Sample(id=f"{t.judge}:{t.key}", source=t, target=None, metadata={"judge": t.judge, "cluster": t.key},
                   input=render("judge_relevance", question=t.question, answer=t.response) if t.judge == "relevant"
                   else render("judge_faithfulness", question=t.question, answer=t.response, passages=t.passages))
            for t in labelled_texts().itertuples(index=False)]


def judge_labelled_texts(run: Run, judge_model: str, samples: int, max_workers: int) -> pd.DataFrame:
    """The judge's verdict on every labelled text (resumable: labelled_texts.jsonl in the run folder)."""

    def judge(s: Sample, row: dict) -> dict:
        t = s.source
        if t.judge == "relevant":
            got = judge_relevance(judge_model, t.question, t.response, samples, stage=STAGE)
        else:
            got = judge_faithfulness(judge_model, t.question, t.response, t.passages, samples, stage=STAGE)
        return {**got.columns(t.judge), "error": got.unscored}

    return run.trials(
        labelled_samples(), log=run.log(("judge", "key", "fingerprint"), "labelled_texts.jsonl"),
        key=lambda s: (s["judge"], s.source.key, fingerprint(judge_model, JUDGE, samples)),
        describe=lambda s: {"question": s.source.question, "response": s.source.response,
                            "passages": s.source.passages, "judge_model": judge_model},
        steps=[Step(STAGE, judge, max_workers)])


def labelled_text_cards(texts: pd.DataFrame, judge_model: str) -> list[dict]:
    """One card per judge over the labelled texts it read."""
    return [judged_card(texts[texts["judge"] == column] if len(texts) else texts, column, metric, judge_model,
                        name, fields, baseline, score)
            for column, (name, fields, metric, baseline, score) in FILES.items()]
