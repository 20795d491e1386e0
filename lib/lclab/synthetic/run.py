"""Notebook 09: every synthetic task at every length and depth, answered once and scored by string match. Samples
are built (and written to disk by the runner) before any call; answers go out in an order that lets each prompt
reuse the longest prefix of the one before (one haystack at a time, in text order)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict

import numpy as np
import pandas as pd
from tqdm import tqdm

from ..models import budget_counters, chat_text, tokenizer_name, within_window
from ..qa import load_validated
from ..runs.folders import fingerprint
from ..runs.params import ParameterError
from ..pipeline import Given
from ..runs.runner import Result, Run, answer_columns, headline
from ..runs.samples import Sample
from ..stats.clusters import cluster_mean_ci, cluster_paired_effect
from ..stats.effective_length import MIN_PAIRS, RULER_THRESHOLD, effective_length_ci
from ..scoring.refusal import refusal_cue
from ..stats.abstention import abstention_table, unanswerable_count
from ..text.context import ABSENT_REPLY
from .associations import association_sample
from .parameters import Parameters
from .ruler import RULER_TASKS, available, expand, ruler_sample
from .reading_gain import known_haystacks, reading_gain
from .ruler_tables import ruler_average, with_value_kind
from .stages import ANSWER, answer_stage
from .tasks import (
    ABSTAIN_TASKS,
    ASSOCIATION_TASKS,
    NEEDLE_TASKS,
    TASKS,
    WITHOUT_DEPTH,
    Source,
    common_words_sample,
    frequent_words_sample,
    needle_sample,
    qa_sample,
    score,
    variables_sample,
)

EXPERIMENT = "synthetic"
KEY = ("sample_id", "fingerprint")
# What every prompt of an ABSTAIN_TASKS task says when the run holds unanswerable haystacks (answerable ones too:
# the prompt must not tell them apart).
IF_ABSENT = f' If the text does not answer it, reply "{ABSENT_REPLY}".'


def build_samples(p: Parameters, context_tokens: list[int], progress: bool = True) -> list[Sample]:
    """Every (task, sample, length, depth) of `p` at the lengths `context_tokens` as a Sample with its exact prompt,
    in the order they are answered: one haystack at a time, so prompts sharing a prefix follow each other (or go
    out together when several are in flight to a server with a prefix cache). `p.max_workers` haystacks are built
    at once: a served model's token counts are round trips."""
    tasks = expand(p.tasks)
    unknown = sorted(set(tasks) - set(TASKS) - set(RULER_TASKS))
    if unknown:
        raise ValueError(f"unknown task(s) {unknown}; known: {[*TASKS, 'ruler', *RULER_TASKS]}")
    corpus, n_samples, qa_path, multi_qa_path = p.corpus, p.n_samples, p.qa_path, p.multi_qa_path
    count, _ = budget_counters(p.model)
    frame = (lambda text: chat_text(p.model, text)) if p.ruler_form == "prefill" else None  # noqa: E731
    pairs = load_validated(corpus, qa_path, n_samples) if "qa" in tasks else None
    per_task = {t: min(n_samples, len(pairs[2]) if t == "qa" else available(t, corpus, qa_path, multi_qa_path))
                for t in tasks}
    # (task, index, answerable): the unanswerable haystacks come after the answerable ones, indices of their own
    haystacks = [(task, i, True) for task in tasks for i in range(per_task[task])]
    haystacks += [(task, per_task[task] + j, False) for task in tasks if task in ABSTAIN_TASKS
                  for j in range(unanswerable_count(p.unanswerable_share, per_task[task]))]
    if_absent = IF_ABSENT if p.unanswerable_share else ""

    def one_haystack(haystack: tuple[str, int, bool]) -> list[Sample]:
        task, i, answerable = haystack
        if task in RULER_TASKS:  # no depth axis: its needles sit at depths drawn per haystack, as RULER draws them
            return [ruler_sample(task, i, budget, corpus, p.seed, count, qa_path, multi_qa_path, frame)
                    for budget in sorted(context_tokens)]
        source = Source(corpus, p.seed, count, if_absent=if_absent if task in ABSTAIN_TASKS else "",
                        answerable=answerable)
        samples = []
        for budget in sorted(context_tokens):
            try:
                samples += [_one(task, i, budget, depth, source, p.value_kinds, pairs)
                            for depth in ([None] if task in WITHOUT_DEPTH else p.depths)]
            except ValueError as err:  # one line, before any model call: the plan and the run stop on it
                raise ParameterError(f"task {task} cannot fill {budget:,} tokens: {err}") from None
        # In text order, each prompt follows the one it shares the longest prefix with: the needle-first prompts
        # of every length together, then each depth's prompts by length. On the `synthetic` profile this reads
        # 26 % fewer prompt tokens than length by length (the plan's prefix simulation, 3 haystacks per task).
        return sorted(samples, key=lambda s: s.input)

    with ThreadPoolExecutor(max_workers=max(1, p.max_workers)) as pool:
        built = list(tqdm(pool.map(one_haystack, haystacks), total=len(haystacks), desc="building samples",
                          disable=not progress))  # a plan prints its table and nothing else
    flat = [s for samples in built for s in samples]
    # RULER's haystacks of a task begin alike (the essays' or the noise's first sentences): in text order over all
    # its haystacks, each prompt follows the one it shares the longest prefix with, across haystacks too.
    ruler = sorted((s for s in flat if s["task"] in RULER_TASKS), key=lambda s: (tasks.index(s["task"]), s.input))
    return [s for s in flat if s["task"] not in RULER_TASKS] + ruler


def prepare(p: Parameters, progress: bool = True) -> list[Sample]:
    """Every sample a run of `p` answers, before any call (the run and the plan both read these): the lengths the
    model's window holds (a length it cannot hold refused, or left out with beyond_window: skip), every task's
    haystacks at each of them."""
    fitting, _ = within_window(p.model, p.context_tokens, reply_room(p), p.beyond_window)
    return build_samples(p, fitting, progress)


def reply_room(p: Parameters) -> int:
    """Reply tokens a length must leave in the window: none where every task is RULER's, prefilled (its budget
    is inside its length, as RULER counts it); else `max_answer_tokens`."""
    return 0 if p.ruler_form == "prefill" and set(expand(p.tasks)) <= set(RULER_TASKS) else p.max_answer_tokens


def answer_budget(sample: Sample, default: int) -> int:
    """A sample's reply budget: RULER's tasks carry their own (with room for the prefix), the lab's use `default`."""
    return sample.metadata.get("max_tokens", default)


def scored_answer(given: Given, s: Sample, row: dict) -> dict:
    """A sample's answer within its budget, and its Score whole: its value, what it found, and why a sample went
    unscored (never a silent 0); with `unanswerable_share`, whether it abstained (the answer rate on answerable
    haystacks)."""
    p = given.p
    reply = answer_stage(answer_budget(s, p.max_answer_tokens), s.metadata.get("text_completion", False)).ask(p, s)
    out = {**answer_columns(reply), **score(reply.text, s.target, s["metric"]).columns("score")}
    if p.unanswerable_share and s["task"] in ABSTAIN_TASKS:
        out.update(refusal_cue(reply.text).columns("abstained", explanation="abstained_phrase"))
    return out


# The registered stage as the run executes it: each sample asked under its own budget, and scored.
SCORED = ANSWER.but(write=scored_answer)


def closed_book_samples(p: Parameters) -> list[Sample]:
    """One sample per haystack of every task with something to find in its text: its question with no text at all
    (LongBench v2's --no_context). Word tasks are left out: their text is the task; so are RULER's (it has no
    closed-book arm)."""
    count, _ = budget_counters(p.model)
    with_text = [t for t in expand(p.tasks) if t not in WITHOUT_DEPTH and t not in RULER_TASKS]
    pairs = load_validated(p.corpus, p.qa_path, p.n_samples) if "qa" in with_text else None
    source = Source(p.corpus, p.seed, count, closed_book=True)
    return [_one(task, i, 0, 0, source, p.value_kinds, pairs)
            for task in with_text for i in range(p.n_samples if task != "qa" else min(p.n_samples, len(pairs[2])))]


def _one(task: str, i: int, budget: int, depth: float | None, source: Source, value_kinds: list[str],
         pairs) -> Sample:
    """Haystack i of `task` at one length and depth (`pairs`: the validated QA set, for the qa task)."""
    if task in NEEDLE_TASKS:
        return needle_sample(task, i, budget, depth, value_kinds[i % len(value_kinds)], source)
    if task in ASSOCIATION_TASKS:
        return association_sample(task, i, budget, depth, source)
    if task == "variables":
        return variables_sample(i, budget, depth, source)
    if task == "common_words":
        return common_words_sample(i, budget, source.corpus, source.seed, source.count)
    if task == "frequent_words":
        return frequent_words_sample(i, budget, source.seed, source.count)
    _, pool, qa = pairs
    pair = qa.iloc[i % len(qa)].to_dict()  # an unanswerable haystack asks an answerable one's question again
    passage = next(d.text for d in pool if d.id == pair["doc_id"])
    return qa_sample(i, pair, passage, budget, depth, source)


def run_synthetic(p: Parameters) -> Result:
    """Run (or resume) the synthetic tasks: one row per sample, scored without a judge; with `closed_book`, every
    haystack's question asked with no text as well (closed_book.jsonl), and the reading gain per task; with
    `unanswerable_share`, haystacks whose asked needles are left out, scored by the refusal rule (`abstention`)."""
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p)) as run:
        # Refused (or narrowed) before any work: lengths the model's window cannot hold.
        _, left_out = within_window(p.model, p.context_tokens, reply_room(p), p.beyond_window)
        samples = prepare(p)

        def answered(trials: list[Sample], log: str) -> pd.DataFrame:
            return run.stages(
                trials, [SCORED], Given(p), log=run.log(KEY, log),
                key=lambda s: (s.id, fingerprint(p.model, answer_budget(s, p.max_answer_tokens), s.input)),
                describe=lambda s: {**{k: v for k, v in s.metadata.items()}, "targets": s.target, "model": p.model})

        every = answered(samples, "items.jsonl")
        # The score tables read the answerable haystacks (the unanswerable ones are read by `abstention` alone),
        # one row per task and value kind: a needle task's kinds are never pooled.
        items = with_value_kind(every[every["answerable"].astype(bool)] if "answerable" in every else every)
        closed = with_value_kind(answered(closed_book_samples(p), "closed_book.jsonl")) if p.closed_book else None
        by_length, lengths = summarize(items, ["task", "context_tokens"]), effective_lengths(items)
        notes = [f"{len(samples)} samples from {len(expand(p.tasks))} tasks x {p.n_samples} haystacks; "
                 + run.resume_note(),
                 f"lengths counted in the {tokenizer_name(p.model)}, chat template included"]
        notes += [r.note for r in lengths.itertuples()] + ([left_out] if left_out else [])
        if repeated := sorted({s["task"] for s in samples if s.metadata.get("haystack_repeated")}):
            notes.append(f"essays repeated from the start, as RULER's, where they ran out: {', '.join(repeated)}")
        overall = cluster_mean_ci(items["score"], items["cluster"]) if "score" in items else {}
        abstaining = (abstention_table(every[every["task"].isin(ABSTAIN_TASKS)], ["task"], "score", "abstained",
                                       "cluster") if p.unanswerable_share and "abstained" in every else None)
        if abstaining is not None:
            notes.append(f"unanswerable: {int((~every['answerable'].astype(bool)).sum())} samples from haystacks "
                         "with the asked needles left out; abstention on them beside the answer rate on the "
                         "answerable ones in `abstention` (combined: the mean of accuracy and abstention)")
        closed_tables = closed_book_tables(items, closed, notes) if closed is not None else {}
        ruler = ruler_average(items)
        notes += [ruler["ruler"]["note"].iloc[0]] if ruler else []
        extra = {**closed_tables, **({"abstention": abstaining} if abstaining is not None else {}),
                 **association_tables(items), **ruler}
        return run.result(summarize(items, ["task", "context_tokens", "depth"]), items=every, notes=notes,
                          tables={"by_length": by_length, "by_task": summarize(items, ["task"]),
                                  "effective_length": lengths, **extra},
                          headline=headline("mean score, every task", overall.get("mean"), overall.get("lo"),
                                            overall.get("hi")))


def closed_book_tables(items: pd.DataFrame, closed: pd.DataFrame, notes: list[str]) -> dict[str, pd.DataFrame]:
    """The closed-book answers, the reading gain per task, and the scores by length without the haystacks the
    model answered in full with no text (named in `notes`)."""
    known = known_haystacks(closed)
    notes.append(f"closed book: {len(known)} of {len(closed)} haystacks answered in full with no text "
                 "(flagged; by_length_not_known leaves them out)")
    return {"closed_book": closed, "reading_gain": reading_gain(items, closed),
            "by_length_not_known": summarize(items[~items["cluster"].isin(known)], ["task", "context_tokens"])}


def summarize(items: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Mean score per cell with a 95 % CI that resamples haystacks (clusters), and how many there were."""
    rows = []
    if "score" not in items:
        return pd.DataFrame(columns=[*by, "n", "haystacks", "score", "lo", "hi", "unscored"])
    for key, part in items.assign(depth=items["depth"].fillna(-1)).groupby(by, sort=True):
        ci = cluster_mean_ci(part["score"].to_numpy(dtype=float), part["cluster"].to_numpy())
        cells = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        if cells.get("depth") == -1:
            cells["depth"] = None  # a task without a needle to place
        rows.append({**cells, "n": ci["n_items"], "haystacks": ci["n_clusters"], "score": ci["mean"],
                     "lo": ci["lo"], "hi": ci["hi"], "unscored": int(part["score"].isna().sum())})
    return pd.DataFrame(rows)


def effective_lengths(items: pd.DataFrame) -> pd.DataFrame:
    """Per task: the effective length two ways, each with a bootstrap CI over haystacks: NoLiMa's (score at or
    above 85 % of the shortest length's) and RULER's (at or above 85.6 %, whatever the short score); not given
    below MIN_PAIRS haystacks per length."""
    rows = []
    for task, part in items.groupby("task", sort=False) if "score" in items else []:
        r = effective_length_ci(part, value="score", cluster="cluster")
        ruler = effective_length_ci(part, value="score", cluster="cluster", absolute=RULER_THRESHOLD)
        enough = r["n_pairs"] >= MIN_PAIRS and part["context_tokens"].nunique() > 1
        shown = lambda x: "none" if np.isnan(x) else f"{x:.0f}"  # noqa: E731
        note = (f"{task}: effective length {shown(r['effective_length'])} tokens [bootstrap 95 % CI {shown(r['lo'])}, "
                f"{shown(r['hi'])}] (85 % of its {r['base_accuracy']:.2f} at the shortest length); RULER's "
                f"(>= {RULER_THRESHOLD:.1%}) {shown(ruler['effective_length'])} [{shown(ruler['lo'])}, "
                f"{shown(ruler['hi'])}]; {r['n_pairs']} haystacks" if enough else
                f"{task}: effective length not estimated ({r['n_pairs']} haystacks, "
                f"{part['context_tokens'].nunique()} lengths; it needs {MIN_PAIRS} haystacks and two lengths)")
        rows.append({"task": task, **r, "ruler_effective_length": ruler["effective_length"], "ruler_lo": ruler["lo"],
                     "ruler_hi": ruler["hi"], "estimated": enough, "note": note})
    return pd.DataFrame(rows, columns=["task", "effective_length", "lo", "hi", "base_accuracy", "n_pairs",
                                       "ruler_effective_length", "ruler_lo", "ruler_hi", "estimated", "note"])


def association_tables(items: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """With both association tasks run: per length, the literal control minus the associative needle, paired by
    haystack (same pair, name and filler) with its cluster t interval; and every written pair's question-needle
    overlap beside its scores. Nothing when either task is missing."""
    if "score" not in items or not set(ASSOCIATION_TASKS) <= set(items["task"]):
        return {}
    both = items[items["task"].isin(ASSOCIATION_TASKS)].dropna(subset=["score"])
    both = both.assign(haystack=both["cluster"].str.rsplit("-", n=1).str[1])
    rows = []
    for length, part in both.groupby("context_tokens"):
        table = part.pivot_table(index=["haystack", "depth"], columns="task", values="score").dropna()
        if table.empty:
            continue
        effect = cluster_paired_effect(table["association_literal"].to_numpy(), table["association"].to_numpy(),
                                       table.index.get_level_values("haystack").to_numpy())
        rows.append({"context_tokens": length, "haystacks": effect["n_clusters"],
                     "literal": table["association_literal"].mean(), "association": table["association"].mean(),
                     "literal_minus_association": effect["effect"], "lo": float(np.clip(effect["effect_lo"], -1, 1)),
                     "hi": float(np.clip(effect["effect_hi"], -1, 1))})
    overlap = (both.groupby(["pair_id", "task"])
               .agg(question_overlap=("question_overlap", "first"), samples=("score", "size"), score=("score", "mean"))
               .reset_index())
    return {"association_gap": pd.DataFrame(rows), "association_overlap": overlap}
