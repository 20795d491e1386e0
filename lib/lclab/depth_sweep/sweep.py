"""Lost in the middle (seed §3a): accuracy as a function of where the answer document sits.

For each validated QA pair and each context budget, one fixed, seeded set of
distractor passages fills the budget; only the answer's position changes with
depth, so the depths of a pair differ in nothing else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

from ..models import budget_counters, check_budget, tokenizer_name
from ..models.embeddings import DEFAULT_EMBEDDER
from ..models.judge_choice import choose_judge
from ..qa import load_validated
from ..qa.closed_book import closed_book_arm
from ..qa.judged import judge_notes, judged_headline, named_judge, with_corrected
from ..runs.folders import fingerprint
from ..pipeline import Given
from ..runs.runner import Result, Run, skipped_note
from ..runs.samples import Sample
from ..scoring.judge_kinds import CORRECTNESS
from ..scoring.judge_reading import read_judge
from ..scoring.judges import JUDGE
from ..scoring.reliability import card_notes, cards
from ..stats import proportion_summary
from ..text.context import answer_prompt, budget_fillers, place_at_depth
from .effects import depth_tables
from .haystacks import mean_similarity, shared_fillers, similar_fillers
from .needles import needle_notes, run_needles
from .parameters import Parameters
from .stages import SWEEP

EXPERIMENT = "depth_sweep"
KEY = ("qa_id", "context_tokens", "depth", "fingerprint")


@dataclass(frozen=True)
class Trial:
    qa_id: str
    doc_id: str
    question: str
    gold: str
    context_tokens: int
    depth: int
    n_documents: int
    position: int
    prompt: str
    distractors: str = "random"  # how the distractors were chosen: random, or most similar to the question
    similarity: float | None = None  # mean cosine similarity of the distractors to the question (similar mode)


HAYSTACKS = ("per_pair", "shared")
DISTRACTORS = ("random", "similar")


def build_trials(qa: pd.DataFrame, pool, context_tokens: list[int], depths: list[int], seed: int,
                 counters: tuple, haystack: str = "per_pair", distractors: str = "random",
                 embedder: str = DEFAULT_EMBEDDER) -> list[Trial]:
    """Every (QA pair, budget, depth) prompt, in an order that lets llama.cpp reuse prompt prefixes (`counters`:
    the model's token counters, lclab.models.budget_counters).

    Within a (pair, budget) group the deepest placement comes first: the next,
    shallower one shares every document before its answer position with it, and
    llama.cpp skips re-reading a shared prefix. With one shared haystack per
    budget, trials are ordered by (budget, depth) instead, deepest first, so the
    prompts of consecutive pairs share everything before their needle.
    """
    if haystack not in HAYSTACKS or distractors not in DISTRACTORS:
        raise ValueError(f"haystack must be one of {HAYSTACKS} and distractors one of {DISTRACTORS}")
    if haystack == "shared" and distractors == "similar":
        raise ValueError("similar distractors are chosen per question: use haystack='per_pair' with them")
    count, count_text = counters
    if haystack == "shared":
        fillers = shared_fillers(qa, pool, context_tokens, seed, count, count_text)
    elif distractors == "similar":
        fillers = similar_fillers(qa, pool, context_tokens, seed, count, count_text, embedder)
    else:
        fillers = budget_fillers(qa, pool, context_tokens, seed, count, count_text)
    trials = []
    for row, answer, budget, chosen in fillers:
        similarity = mean_similarity(row.question, chosen, embedder) if distractors == "similar" else None
        for depth in sorted(depths, reverse=True):
            docs = place_at_depth(answer, chosen, depth)
            trials.append(Trial(row.qa_id, row.doc_id, row.question, row.answer, budget, depth, len(docs),
                                docs.index(answer), answer_prompt(docs, row.question), distractors, similarity))
    if haystack == "shared":
        order = {qa_id: i for i, qa_id in enumerate(qa["qa_id"])}
        trials.sort(key=lambda t: (t.context_tokens, -t.depth, order[t.qa_id]))
    return trials


def as_samples(trials: list[Trial]) -> list[Sample]:
    """Each trial as the lab's Sample: its exact prompt, the gold answer, and what places it (the QA pair is the
    cluster)."""
    return [Sample(id=f"{t.qa_id}:{t.context_tokens}@{t.depth}" + (f":{t.distractors}" if t.distractors != "random"
                                                                   else ""),
                   input=t.prompt, target=t.gold, source=t,
                   metadata={"qa_id": t.qa_id, "context_tokens": t.context_tokens, "depth": t.depth,
                             "position": t.position, "n_documents": t.n_documents, "distractors": t.distractors,
                             "cluster": t.qa_id}) for t in trials]


def prepare(p: Parameters, validated: tuple | None = None, similar: bool = True) -> list[Sample]:
    """Parameters -> every sweep trial the run answers, before any call (the run and its plan both start here):
    each validated QA pair at every budget, depth and distractor mode. `validated`: load_validated's (corpus,
    pool, qa) when the caller has read them; `similar=False` builds the similar-distractor trials with random
    distractors instead (a plan runs no embedding model; the prompts are of the same size)."""
    _, pool, qa = validated or load_validated(p.corpus, p.qa_path, p.n_qa)
    counters = budget_counters(p.model)
    return as_samples([t for mode in p.distractors for t in build_trials(
        qa, pool, p.context_tokens, p.depths, p.seed, counters, p.haystack,
        mode if similar else "random", p.embedder)])


def describe(s: Sample) -> dict:
    return {"doc_id": s.source.doc_id, "n_documents": s["n_documents"], "position": s["position"],
            "question": s.source.question, "gold": s.target}


def placed_by(s: Sample) -> dict:
    return {"distractors": s["distractors"], "distractor_similarity": s.source.similarity}


def run_depth_sweep(p: Parameters) -> Result:
    """Run (or resume) the sweep: one row per (QA pair, budget, depth, distractor mode), answered then judged;
    with needles above 1, the multi-needle trials too (needles.py); with `closed_book`, every pair asked with no
    context as well (closed_book.py). The judge (`judge_model`, "" for the default: lclab.models.judge_choice)
    reads `card_texts` of the shipped labelled answers (0: all) for its card, which decides what is read."""
    chosen = choose_judge(p.model, p.judge_model)
    judge_model = chosen.spec
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p) | {"judge_model": judge_model, "judge": chosen}) as run:
        check_budget(p.model, max(p.context_tokens), p.max_answer_tokens * max(p.needles))  # refused before any work
        loaded, pool, qa = load_validated(p.corpus, p.qa_path, p.n_qa)
        count, count_text = budget_counters(p.model)
        trials = prepare(p, (loaded, pool, qa))

        def key(s: Sample) -> tuple:
            t = s.source
            return (t.qa_id, t.context_tokens, t.depth,
                    fingerprint(p.model, judge_model, p.max_answer_tokens, s.input, JUDGE, p.self_consistency,
                                *([t.distractors] if t.distractors != "random" else [])))

        items = run.stages(
            trials, SWEEP, Given(p, judge_model), log=run.log(KEY), key=key,
            describe=lambda s: describe(s) | {"model": p.model, "judge_model": judge_model} | placed_by(s))
        notes = [f"{len(qa)} QA pairs -> {len(trials)} trials; " + run.resume_note(),
                 f"{len(pool)} passages in the corpus; tokens counted with the {tokenizer_name(p.model)}"]
        reading = read_judge(chosen, "answer_correct", p.card_texts)
        items = reading.read_items(items, "judge_correct")  # at the card's cross-validated threshold
        disagree = judge_vs_match(items)
        notes += skipped_note(loaded.skipped) + item_notes(items, disagree)
        reliability = cards([CORRECTNESS.card(items, reading.judge.label, "answer correct (01)",
                                              named={"reference": "gold"})])
        base = items[items["distractors"] == p.distractors[0]] if "distractors" in items else items
        depth, depth_lines = depth_tables(base, reading, list(p.context_tokens), p.distractors[0])
        depth = named_judge(depth, reading)
        notes += judge_notes(reading) + card_notes(reliability) + depth_lines
        _, needle_table = run_needles(run, p, qa, pool, count, count_text)
        arm, arm_notes = closed_book_arm(run, p, items, reading, qa)
        notes += needle_notes(needle_table) + arm_notes
        arm = named_judge(arm, reading)
        return run.result(summarize(items, reading), items=items, notes=notes,
                          tables={"judge_vs_match": disagree, "reliability": reliability, "judge_card": reading.table(),
                                  **depth, "by_distractors": by_distractors(items), "needles": needle_table, **arm},
                          data={"judge_line": reading.line, "judge_informative": reading.informative},
                          headline=judged_headline(items, reading, "all cells"))


def item_notes(items: pd.DataFrame, disagree: pd.DataFrame) -> list[str]:
    """What the contexts held, and how often the judge and the string match agree."""
    notes = []
    if "prompt_tokens" in items and items["prompt_tokens"].notna().any():
        notes.append(f"documents per context: {items['n_documents'].min()}-{items['n_documents'].max()}; "
                     f"prompt tokens: {items['prompt_tokens'].min():.0f}-{items['prompt_tokens'].max():.0f}")
    judged = int(items["judge_correct"].notna().sum()) if "judge_correct" in items else 0
    return notes + [f"judge and string match agree on {judged - len(disagree)} of {judged} judged items "
                    "(result.tables['judge_vs_match'] lists the others)"]


def by_distractors(items: pd.DataFrame) -> pd.DataFrame:
    """Judge accuracy per distractor mode (random, most similar to the question) with Wilson 95 % CIs, and the
    mean similarity of the distractors where it was measured."""
    if "distractors" not in items or items["distractors"].nunique() < 2:
        return pd.DataFrame()
    table = proportion_summary(items, ["distractors"], "judge_correct", "judge")
    similarity = items.groupby("distractors")["distractor_similarity"].mean()
    return table.assign(mean_similarity=table["distractors"].map(similarity))


def summarize(items: pd.DataFrame, reading=None) -> pd.DataFrame:
    """Per (context_tokens, depth): the judge's raw and card-corrected accuracy and the string match, with 95 %
    CIs, and failures (`reading`: lclab.scoring.judge_reading; without it, the raw rates only)."""
    by = (["distractors"] if "distractors" in items and items["distractors"].nunique() > 1 else []) + [
        "context_tokens", "depth"]
    judge = proportion_summary(items, by, "judge_correct", "judge")
    match = proportion_summary(items, by, "string_match", "match")
    table = judge.merge(match.drop(columns="match_missing"), on=by)
    return with_corrected(table, items, reading, by) if reading is not None else table


def judge_vs_match(items: pd.DataFrame) -> pd.DataFrame:
    """The items where the judge and the judge-free string match disagree (a view on the judge's reliability)."""
    columns = ["qa_id", "context_tokens", "depth", "gold", "response", "judge_correct", "string_match"]
    if "judge_correct" not in items:
        return pd.DataFrame(columns=columns)
    judged = items[items["judge_correct"].notna()]
    return judged.loc[judged["judge_correct"].astype(bool) != judged["string_match"].astype(bool), columns]


def rebuild_prompt(parameters: dict, row: dict) -> list[dict]:
    """The chat messages an item's answering call sent, rebuilt from the run's parameters (see lclab.runs.manifest)."""
    _, pool, qa = load_validated(parameters["corpus"], parameters["qa_path"], parameters["n_qa"])
    trials = build_trials(qa, pool, parameters["context_tokens"], parameters["depths"], parameters["seed"],
                          budget_counters(parameters["model"]), parameters.get("haystack", "per_pair"),
                          row.get("distractors", "random"), parameters.get("embedder", DEFAULT_EMBEDDER))
    wanted = (row["qa_id"], row["context_tokens"], row["depth"])
    trial = next((t for t in trials if (t.qa_id, t.context_tokens, t.depth) == wanted), None)
    if trial is None:
        raise KeyError(f"no trial {wanted} in this run's parameters")
    return [{"role": "user", "content": trial.prompt}]
