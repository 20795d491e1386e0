"""Each kind of judged verdict, declared once: the run that judges with it, the plan that prices it, its card on
the shipped labelled texts, the labelling sheet and desk, and the explorer all read the same value.

    RELEVANCE.judge(judge_model, {"question": q, "response": a}, samples=0)   # a Score, from its template
    RELEVANCE.columns(score)                          # {"relevant": ..., "relevant_p": ..., "relevant_error": ...}
    RELEVANCE.declared(reads="answer", known=...)     # the pipeline Stage the runner executes and a plan prices
    judged_in("rag_validation")                       # the kinds 06 judges every answer with, in order

The fields a kind reads are named as a judged item names them (question, reference, response, passages); `asks`
says which template field each fills. Adding a judge kind to 06 takes three files: its entry below (with
`judged_in=("rag_validation",)`), its template (lclab/prompts/<template>.txt) and its labelled texts
(data/judge_labels/<kind>.csv, for its card).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from ..pipeline import Stage
from ..planning.priors import declare_reply
from ..prompts import render
from .judges import judge_boolean, judge_requests
from .score import Score


@dataclass(frozen=True)
class JudgeKind:
    """kind:       the labelled texts' kind: data/judge_labels/<kind>.csv, and the card's
    template:   its prompt template
    key:        the boolean key of the judge's JSON reply
    column:     the item column of its verdict (beside it <column>_p, _source, _mass_outside, ...)
    fields:     the item fields a label is filed under and a labelling sheet shows
    asks:       (template field, item field) pairs: what fills its prompt
    means:      what a label of 1 says (cards, tables)
    buttons:    the labelling desk's words for a label of 1 and of 0
    rule:       the rule its texts are labelled by (data/judge_labels/README.md), shown above every text
    stage:      its gateway stage in a run: the accounting's and the plan's row
    metric:     its card's metric on a run's own items (06 adds " (06)")
    rate:       its rate's name in 06's answer_quality table
    baseline:   the judge-free score beside its card: content_overlap(item[overlap[0]], item[overlap[1]])
    error:      the column an unreadable verdict goes to, where it is not <column>_error
    judged_in:  the experiments that judge every answer with it
    reply_tokens: a verdict's expected tokens before a run measures them (declared to lclab.planning.priors)
    """

    kind: str
    template: str
    key: str
    column: str
    fields: tuple[str, ...]
    asks: tuple[tuple[str, str], ...]
    means: str
    buttons: tuple[str, str]
    rule: str
    stage: str
    metric: str
    rate: str
    baseline: str
    overlap: tuple[str, str]
    error: str | None = None
    judged_in: tuple[str, ...] = ()
    reply_tokens: int = 8

    def __post_init__(self):
        declare_reply(self.stage, self.reply_tokens)  # what a plan prices its verdicts at before a run measures them

    def prompt(self, item: Mapping) -> str:
        """The exact prompt its judge is sent for one item (its `fields`, as the item names them)."""
        return render(self.template, **{slot: item[name] for slot, name in self.asks})

    def judge(self, judge_model: str, item: Mapping, samples: int = 0, stage: str | None = None) -> Score:
        """The verdict on one item, with its probability (lclab.scoring.judges.judge_boolean)."""
        return judge_boolean(judge_model, self.template, self.key, stage or self.stage, samples,
                             **{slot: item[name] for slot, name in self.asks})

    def columns(self, score: Score) -> dict:
        """The verdict as an item's columns."""
        return score.columns(self.column, error=self.error)

    def baseline_score(self, item: Mapping) -> float | None:
        from .baselines import content_overlap

        return content_overlap(item[self.overlap[0]], item[self.overlap[1]])

    def declared(self, reads: str, known: Callable[[object], Mapping], name: str | None = None,
                 write: Callable | None = None) -> Stage:
        """This judge as the pipeline stage that reads stage `reads`'s reply as the response: `known(sample)` gives
        the item fields known before the run (the question, the reference); the others are priced by the plan.
        The run judges the item `known(sample)` fills, with the response and any other field it reads from the
        row the earlier stages wrote (06's passages), and writes `write(verdict, item)` (else `verdict_columns`)."""
        slots = tuple(slot for slot, name in self.asks if name == "response")
        stage = name or self.stage

        def before_run(sample) -> dict:
            values = known(sample)
            return {slot: values[name] for slot, name in self.asks if name in values}

        def judged(given, sample, row: dict) -> dict:
            values = known(sample)
            item = {**values, **{name: row[name] for _, name in self.asks if name not in values}}
            verdict = self.judge(given.judge, item, given.p.self_consistency, stage=stage)
            return (write or self.verdict_columns)(verdict, item)

        return Stage(stage, role="judge", request=lambda p: judge_requests(p.self_consistency), reads=reads,
                     template=self.template, slots=slots, known=before_run, write=judged)

    def verdict_columns(self, verdict: Score, item: Mapping) -> dict:
        """A verdict as row columns, and an unreadable one as the row's error (06's judges)."""
        columns, named = self.columns(verdict), self.error or f"{self.column}_error"
        return {**columns, "error": f"{named}: {columns[named]}" if columns.get(named) else None}

    def card(self, items, judge_label: str, metric: str, cluster: str = "qa_id", named: Mapping | None = None
             ) -> dict:
        """Its reliability card over a run's items, against its labelled texts, beside its baseline; `named` maps
        a field to the item column that holds it where they differ (01 and 02 call the reference `gold`)."""
        from .reliability import judged_card

        column = {f: (named or {}).get(f, f) for f in self.fields}
        return judged_card(items, self.column, metric, judge_label, self.kind, tuple(column.values()),
                           self.baseline, lambda r: self.baseline_score({f: r[c] for f, c in column.items()}),
                           cluster)


CORRECTNESS = JudgeKind(
    kind="answer_correct", template="judge_correct", key="correct", column="judge_correct",
    fields=("question", "reference", "response"),
    asks=(("question", "question"), ("answer", "response"), ("gold_answer", "reference")),
    means="the response says what the reference says", buttons=("correct", "wrong"),
    rule="1 when the response says what the reference (gold) answer says, in any words; 0 otherwise. On an "
         "unanswerable item (its answer passage cut out) abstaining is right: such a text is labelled apart from "
         "its answerable twin",
    stage="judge", metric="answer equals reference", rate="answer equals reference (judge)",
    baseline="reference words in the response", overlap=("reference", "response"), error="judge_error",
    judged_in=("rag_validation",))
RELEVANCE = JudgeKind(
    kind="rag_relevance", template="judge_relevance", key="relevant", column="relevant",
    fields=("question", "response"), asks=(("question", "question"), ("answer", "response")),
    means="the response addresses the question", buttons=("relevant", "not relevant"),
    rule="1 when the response addresses the question asked, right or wrong; 0 for another topic or a bare refusal",
    stage="judge_relevance", metric="answer relevance", rate="answer relevance",
    baseline="question words in the response", overlap=("question", "response"), judged_in=("rag_validation",))
FAITHFULNESS = JudgeKind(
    kind="rag_faithfulness", template="judge_faithfulness", key="faithful", column="faithful",
    fields=("question", "response", "passages"),
    asks=(("question", "question"), ("answer", "response"), ("passages", "passages")),
    means="every claim of the response is in the passages", buttons=("faithful to the passages", "not faithful"),
    rule="1 when every claim of the response is stated or implied by the retrieved passages (a response saying "
         "they do not answer counts as faithful); 0 otherwise",
    stage="judge_faithfulness", metric="faithfulness", rate="faithfulness to retrieved chunks",
    baseline="response words in the passages", overlap=("response", "passages"), judged_in=("rag_validation",))

JUDGE_KINDS: dict[str, JudgeKind] = {k.kind: k for k in (CORRECTNESS, RELEVANCE, FAITHFULNESS)}


def answered_by_sample(sample) -> dict:
    """The fields a judge knows before the run of a sample whose source holds the question and whose target is the
    reference (01, 02, 00's closed-book arm, 06)."""
    return {"question": sample.source.question, "reference": sample.target}


def correctness_judge(reads: str = "answer") -> Stage:
    """The seed's correctness judge as the stage reading stage `reads`'s reply (01, 02, 00's closed-book arm),
    beside the judge-free string match. A sample with no gold answer (`answerable` False: the refusal rule scores
    it) is not judged."""
    stage = CORRECTNESS.declared(reads, answered_by_sample,
                                 write=lambda verdict, item: correctness_columns(verdict, item["response"],
                                                                                 item["reference"]))
    return stage.but(when=lambda sample: sample.metadata.get("answerable") is not False)


def correctness_columns(verdict: Score, response: str, gold_answer: str) -> dict:
    """An answer's row columns from the correctness verdict, beside the judge-free string match; a verdict that
    could not be read is the row's error (the row is then left out of every rate)."""
    from .judges import string_match

    return {"string_match": string_match(response, gold_answer).value, **CORRECTNESS.columns(verdict),
            "error": verdict.unscored and f"judge: {verdict.unscored}"}


def judged_in(experiment: str) -> tuple[JudgeKind, ...]:
    """The kinds `experiment` judges every answer with, in the registry's order (read when called, so a kind
    registered later, as a test's toy kind is, is judged too)."""
    return tuple(k for k in JUDGE_KINDS.values() if experiment in k.judged_in)
