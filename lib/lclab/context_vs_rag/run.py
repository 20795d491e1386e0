"""Long context vs RAG (seed 000 §3b): the same document set, stuffed into the prompt or retrieved from.

Each document set (see `sets.py`) is
- shuffled (seeded) into one long context and answered (method `long_context`);
- chunked, indexed in its own vector-store collection, and the top-k chunks for
  the question answered with the same prompt (method `rag`).
Both are judged with the seed's judge and the judge-free string check; prompt
tokens and the answering call's latency give the cost side.

Beyond the seed (steps.py runs every arm's trial, frontier.py reads them): RAG at more k on the fullest sets
(`frontier_k`), Self-Route (`self_route`: RAG first, the long context when the model says the chunks do not
answer), and unanswerable sets (`unanswerable_share`: the answer passage cut out; abstention scored by the
refusal rule, no judge).
"""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from ..models import budget_counters, check_budget, tokenizer_name
from ..qa import load_validated
from ..models.judge_choice import choose_judge
from ..qa.closed_book import closed_book_arm
from ..qa.judged import judge_notes, labelled_difference, named_judge, read_value, with_corrected
from ..pipeline import Given
from ..retrieval.chunking import Chunker
from ..runs.runner import Result, Run, headline, skipped_note
from ..scoring.judge_reading import read_judge
from ..runs.samples import Sample
from ..scoring.judge_kinds import CORRECTNESS
from ..scoring.reliability import card_notes, cards
from ..stats import proportion_summary
from ..stats.effective_length import accuracy_by_length, effective_length_ci, length_note
from ..stats.paired import effect_row, paired, power_note, wide
from ..text.context import IF_ABSENT, answer_prompt
from .frontier import arm_tables
from .parameters import Parameters
from .sets import DocumentSet, build_sets
from .steps import TRIAL, TrialSteps

EXPERIMENT = "context_vs_rag"
KEY = ("qa_id", "noise_pct", "method", "fingerprint")
METHODS = ("long_context", "rag")


def methods_of(doc_set: DocumentSet, top_noise: int, top_k: int, frontier_k: list[int], self_route: bool
               ) -> list[tuple[str, int | None]]:
    """(method, chunks retrieved) of one set: both methods everywhere; on the answerable sets of the highest
    noise level (the fullest), RAG at every other k of the frontier and Self-Route."""
    out = [("long_context", None), ("rag", top_k)]
    if doc_set.answerable and doc_set.noise_pct == top_noise:
        out += [(f"rag@{k}", k) for k in sorted(set(frontier_k) - {top_k})]
        out += [("self_route", top_k)] if self_route else []
    return out


def prepare(p: Parameters, validated: tuple | None = None) -> list[Sample]:
    """Parameters -> every trial the run answers, before any call (the run and its plan both start here): the
    nested document sets of the validated QA pairs, each once per method. `validated`: load_validated's
    (corpus, pool, qa) when the caller has read them already."""
    _, pool, qa = validated or load_validated(p.corpus, p.qa_path, p.n_qa)
    count, count_text = budget_counters(p.model)
    sets = build_sets(qa, pool, p.context_tokens, p.noise_levels, p.seed, count, count_text, p.unanswerable_share)
    return as_samples(sets, p.top_k, p.frontier_k, p.self_route, IF_ABSENT if p.unanswerable_share else "")


def document_sets(samples: list[Sample]) -> list[DocumentSet]:
    """The document sets of `prepare`'s samples, each once, in order (every method's sample holds its set)."""
    return list({id(s.source): s.source for s in samples}.values())


def as_samples(sets: list[DocumentSet], top_k: int = 3, frontier_k: list[int] = (), self_route: bool = False,
               if_absent: str = "") -> list[Sample]:
    """Every document set once per method, as a Sample: long context's input is its exact answer prompt; RAG's
    and Self-Route's is the query their retrieval embeds (the answer prompt is built from the chunks that step
    writes down)."""
    top = max((s.noise_pct for s in sets), default=0)
    return [Sample(id=f"{s.qa_id}:{s.noise_pct}:{method}",
                   input=answer_prompt(s.docs, s.question, if_absent) if method == "long_context" else s.question,
                   target=s.gold, source=s,
                   metadata={"method": method, "noise_pct": s.noise_pct, "cluster": s.qa_id, "k": k,
                             "answerable": s.answerable})
            for s in sets for method, k in methods_of(s, top, top_k, frontier_k, self_route)]


def run_context_vs_rag(p: Parameters) -> Result:
    """Run (or resume) both methods on every document set: one row per (pair, noise level, method); with
    `closed_book`, every QA pair asked with no context as well (lclab.qa.closed_book); `frontier_k`,
    `self_route` and `unanswerable_share` add their arms (module docstring). The judge (lclab.models.judge_choice)
    reads `card_texts` of the shipped labelled answers for its card, which decides what is read (qa/judged.py)."""
    judge = choose_judge(p.model, p.judge_model)
    judge_model = judge.spec
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p) | {"judge_model": judge_model, "judge": judge}) as run:
        check_budget(p.model, p.context_tokens, p.max_answer_tokens)  # refused before any work
        loaded, pool, qa = load_validated(p.corpus, p.qa_path, p.n_qa)
        samples = prepare(p, (loaded, pool, qa))
        sets = document_sets(samples)
        if_absent = IF_ABSENT if p.unanswerable_share else ""
        steps = TrialSteps(p.model, judge_model, p.max_answer_tokens, p.self_consistency, p.store, p.embedder,
                           Chunker(p.chunk_tokens, "tokens"), run.dir / "chroma", if_absent, p.max_workers)
        every = run.stages(samples, TRIAL, Given(steps, judge_model), log=run.log(KEY), key=steps.key,
                           describe=steps.describe)
        # The seed's tables read its two methods on the answerable sets; the other arms have tables of their own.
        items = every[every["answerable"].astype(bool) & every["method"].isin(METHODS)] if "answerable" in every \
            else every
        notes = [f"{len(qa)} QA pairs x noise levels -> {len(sets)} document sets "
                 f"({int((~pd.Series([s.answerable for s in sets])).sum())} unanswerable), "
                 f"{len(every)} trials; " + run.resume_note(),
                 f"context budget {p.context_tokens} tokens ({tokenizer_name(p.model)}); {len(pool)} passages in "
                 "the corpus"]
        notes += skipped_note(loaded.skipped)
        reading = read_judge(judge, "answer_correct", p.card_texts)
        every = reading.read_items(every, "judge_correct")  # at the card's cross-validated threshold
        items = every.loc[items.index]
        reliability = cards([CORRECTNESS.card(items, reading.judge.label, "answer correct (02)",
                                              named={"reference": "gold"})])
        value = read_value(reading)  # the judge's verdicts where its card says it can tell, else the string match
        effects, line = method_effects(items, value, reading)
        lengths, length_line = long_context_length(items, value)
        arm, arm_notes = closed_book_arm(run, p, items, reading, qa, by=("noise_pct", "method"))
        notes += judge_notes(reading) + card_notes(reliability) + [line, length_line] + arm_notes
        more, more_notes = arm_tables(every, bool(p.frontier_k), p.self_route, bool(p.unanswerable_share), reading)
        notes += more_notes
        arm, more, effects = named_judge(arm, reading), named_judge(more, reading), effects.assign(
            judge=reading.judge.label)
        return run.result(with_corrected(summarize(items), items, reading, ["noise_pct", "method"]), items=every,
                          notes=notes, tables={"retrieval_misses": retrieval_misses(items), "reliability": reliability,
                                               "judge_card": reading.table(), "effects": effects,
                                               "effective_length": lengths, **arm, **more},
                          data={"judge_line": reading.line, "judge_informative": reading.informative},
                          headline=effect_headline(effects, reading))


def effect_headline(effects: pd.DataFrame, reading) -> dict:
    """Long context − RAG at the highest noise level: the judged difference corrected by the run's own labels
    where both arms have enough (as the summary rows read them), else by the judge's card, or the string match's
    where the judge is uninformative."""
    top = effects.iloc[-1] if len(effects) else {}
    where = f"long context − RAG at {top.get('noise_pct', '?')} % noise"
    if pd.notna(top.get("labelled", float("nan"))):  # enough labels in both arms
        return headline(f"{where}, answer correct corrected by this run's labels ({top['labelled_by']}, "
                        f"{int(top['labelled_n'])} labelled QA pairs per arm)", top["labelled"],
                        top.get("labelled_lo"), top.get("labelled_hi"), judge=reading.judge.label)
    if reading.informative:
        return headline(f"{where}, answer correct corrected by the shipped card", top.get("corrected"),
                        top.get("corrected_lo"), top.get("corrected_hi"), judge=reading.judge.label)
    return headline(f"{where}, string match ({reading.uninformative_note})", top.get("effect"),
                    top.get("effect_lo"), top.get("effect_hi"), judge=reading.judge.label)


def summarize(items: pd.DataFrame) -> pd.DataFrame:
    """Per (noise level, method): accuracies with 95 % CIs, documents, prompt tokens and answer time."""
    by = ["noise_pct", "method"]
    judge = proportion_summary(items, by, "judge_correct", "judge")
    match = proportion_summary(items, by, "string_match", "match").drop(columns="match_missing")
    cost = items.reindex(columns=by + ["n_distractors", "prompt_tokens", "answer_latency_s"]).groupby(by).agg(
        n_distractors=("n_distractors", "mean"),
        prompt_tokens=("prompt_tokens", "mean"),
        answer_s=("answer_latency_s", "mean"),
    ).reset_index()
    out = judge.merge(match, on=by).merge(cost, on=by)
    if "answer_doc_retrieved" in items:
        hit = items[items["method"] == "rag"].groupby("noise_pct")["answer_doc_retrieved"].mean()
        out["answer_doc_retrieved"] = [hit.get(n) if m == "rag" else None
                                       for n, m in zip(out["noise_pct"], out["method"])]
    return out


def method_effects(items: pd.DataFrame, value: str = "judge_correct", reading=None) -> tuple[pd.DataFrame, str]:
    """Long context minus RAG per noise level, paired by QA pair (paired t), read from `value`, and the power
    line from the per-pair differences of every level; with the judge's `reading` and its verdicts, each
    difference corrected by its card too."""
    rows, differences = [], []
    for level, part in items.groupby("noise_pct") if value in items else []:
        result = paired(part, "qa_id", "method", value, "long_context", "rag")
        row = {"noise_pct": level, **effect_row("long context − RAG", result, True), "read_from": value}
        if reading is not None and value == "judge_correct":
            row |= reading.difference(row["effect"], row["effect_lo"], row["effect_hi"], row["n_pairs"])
        if reading is not None:  # the run's own labels, as the summary rows read them, whatever the card says
            row |= labelled_difference(part, "method", "long_context", "rag")
        rows.append(row)
        table = wide(part, "qa_id", "method", value)
        if {"long_context", "rag"} <= set(table):
            differences += (table["long_context"] - table["rag"]).dropna().tolist()
    sd = pd.Series(differences).std() if len(differences) > 1 else float("nan")
    return pd.DataFrame(rows), power_note(sd, items["qa_id"].nunique() if len(items) else 0)


def long_context_length(items: pd.DataFrame, value: str = "judge_correct") -> tuple[pd.DataFrame, str]:
    """The long-context arm as a length sweep: each noise level's set is as long as its mean prompt; the
    effective length (>= 85 % of the shortest set's accuracy) with a bootstrap CI over QA pairs."""
    long = items[items["method"] == "long_context"] if "method" in items else items.iloc[:0]
    if "prompt_tokens" not in long or long["prompt_tokens"].isna().all():
        return pd.DataFrame(), length_note(effective_length_ci(long), [])
    size = long.groupby("noise_pct")["prompt_tokens"].mean().round().astype(int)
    as_lengths = long.assign(context_tokens=long["noise_pct"].map(size))
    result = effective_length_ci(as_lengths, value=value)
    table = accuracy_by_length(as_lengths, value).merge(size.rename("context_tokens").reset_index(), on="context_tokens")
    return table.assign(**{f"effective_{k}": v for k, v in result.items()}, read_from=value), length_note(
        result, list(size))


def retrieval_misses(items: pd.DataFrame) -> pd.DataFrame:
    """RAG answers whose retrieved chunks missed the answer passage (a retrieval failure, not a reading one)."""
    columns = ["qa_id", "noise_pct", "question", "retrieved", "response"]
    if "answer_doc_retrieved" not in items:
        return pd.DataFrame(columns=columns)
    rag = items[(items["method"] == "rag") & items["answer_doc_retrieved"].notna()]
    return rag.loc[~rag["answer_doc_retrieved"].astype(bool)].reindex(columns=columns)  # no response if it failed
