"""Notebook 09 as one registered experiment: the very samples the run answers, one set per reply budget (planned
by the generic planner), compared by haystack."""

from __future__ import annotations

from ..experiments import Design, Experiment, SampleSet, Series, register
from ..models import within_window
from ..runs.declared import declared
from .parameters import Parameters
from .ruler import PREFIX_ROOM, RULER_TASKS, expand
from .run import EXPERIMENT, answer_budget, closed_book_samples, prepare, reply_room, run_synthetic
from .stages import ANSWER, answer_stage
from .tasks import WITHOUT_DEPTH


def sample_sets(p: Parameters) -> list[SampleSet]:
    """Every sample's exact prompt (the run's own `prepare`) through the answer stage, looked up in the cache, one
    set per reply budget and form; the closed-book samples; no judge."""
    samples = prepare(p, progress=False)
    lengths, _ = within_window(p.model, p.context_tokens, reply_room(p), p.beyond_window)
    beyond = [n for n in p.context_tokens if n not in lengths]
    unanswerable = sum(not s["answerable"] for s in samples)
    notes = ((f"; {unanswerable} of them unanswerable" if unanswerable else "")
             + (f"; {beyond} left out: beyond the window" if beyond else ""))
    # RULER's tasks answer within their own budgets (128, 30, 120, 50, 32 tokens; prefilled as RULER runs open
    # models, else with room for the answer prefix): one set per budget and form.
    def form(s) -> tuple[int, bool]:
        return answer_budget(s, p.max_answer_tokens), bool(s.metadata.get("text_completion"))

    forms = sorted({form(s) for s in samples}, key=lambda f: (f[0] != p.max_answer_tokens or f[1], f))
    sets = []
    for j, (b, text) in enumerate(forms):
        label = (f"answer, RULER's {b}-token budget, prefilled (no judge)" if text else
                 "answer (no judge)" if b == p.max_answer_tokens else
                 f"answer, RULER's {b - PREFIX_ROOM}-token budget and {PREFIX_ROOM} for its prefix (no judge)")
        sets.append(SampleSet([s for s in samples if form(s) == (b, text)], (answer_stage(b, text),),
                              (label + (notes if j == 0 else ""),)))
    if p.closed_book:  # the run's own closed-book samples: one question per haystack, no text
        sets.append(SampleSet(closed_book_samples(p), (answer_stage(p.max_answer_tokens),),
                              ("answer, closed book (no judge)",), in_order=False))
    return sets


def design(given: dict) -> Design:
    """The primary comparison: the longest length minus the shortest, paired by haystack."""
    p = declared(Parameters, given)
    lengths, tasks = sorted(p.context_tokens), expand(p.tasks)
    per_task = f"{p.n_samples} per task x {len(tasks)} tasks, pooled over tasks"
    # RULER's tasks and the word tasks have no asked depth: one item per length (the mean over a mixed set)
    per_haystack = [len(lengths) * (1 if t in RULER_TASKS or t in WITHOUT_DEPTH else len(p.depths))
                    for t in tasks]
    return Design(units=p.n_samples * len(tasks), unit=f"haystacks ({per_task})",
                  items_per_unit=round(sum(per_haystack) / len(per_haystack)),
                  comparison=f"{lengths[-1]:,} − {lengths[0]:,} tokens", contrast=("context_tokens", lengths[-1],
                                                                                    lengths[0]))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="09_synthetic_tasks", parameters=Parameters, prepare=prepare, design=design,
    run=run_synthetic, stages=(ANSWER,), sample_sets=sample_sets,
    comparable=("tasks", "context_tokens", "depths", "n_samples", "seed", "corpus", "value_kinds", "qa_path",
                "multi_qa_path", "max_answer_tokens"),
    series=Series(key=("sample_id",), value="score", x="context_tokens", x_label="context length (tokens)",
                  value_label="score (share of the asked values found)",
                  binary=False, cluster="cluster", unit="haystacks"),
    description="Synthetic long-context tasks (RULER-style needles, variable tracking, word extraction, QA): "
                "score by length and depth, scored by string match, no judge"))
