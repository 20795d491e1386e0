"""Notebook 01 as one registered experiment: how it is planned, compared and its prompts rebuilt."""

from __future__ import annotations

from ..experiments import Design, Experiment, Series, register
from ..models import budget_counters
from ..planning.plan import one_at_a_time_local
from ..planning.experiment_plan import planned_stages
from ..planning.stages import named
from ..qa import closed_book, load_validated
from ..runs.declared import declared
from ..scoring.judge_card import planned_card
from .needles import needle_trials
from .parameters import Parameters
from .stages import SWEEP, needle_answer
from .sweep import EXPERIMENT, prepare, rebuild_prompt, run_depth_sweep


def plan(notebook: str, given: dict) -> list[dict]:
    """The run's own samples through its declared stages (exact answer prompts, looked up in the cache; a judge
    call each, exact where the answer is cached, else priced by the judge's template); the multi-needle and
    closed-book samples alike."""
    p = declared(Parameters, given)
    validated = load_validated(p.corpus, p.qa_path, p.n_qa)
    _, pool, qa = validated
    count, text = budget_counters(p.model)
    # The run's own trials; similar distractors would need the embedder (a model) to choose: planned as random ones.
    trials = prepare(p, validated, similar=False)
    rows = planned_stages(notebook, EXPERIMENT, p, trials, SWEEP, reuse_prefix=one_at_a_time_local(p.model, SWEEP[0].concurrency(p)))
    for k in (k for k in p.needles if k > 1):  # the run's own multi-needle samples, exact prompts
        needled = needle_trials(qa, pool, [k], p.context_tokens, p.seed, count, text)
        rows += [named(r, f"answer, {k} needles") for r in planned_stages(notebook, EXPERIMENT, p, needled,
                                                                         (needle_answer(k),))]
    if p.closed_book:  # the run's own closed-book samples: exact prompts, a judge call each
        closed = planned_stages(notebook, EXPERIMENT, p, closed_book.closed_book_samples(qa), closed_book.STAGES)
        rows += [named(closed[0], "answer, closed book"), named(closed[1], "judge, closed book")]
    return rows + [planned_card(notebook, EXPERIMENT, SWEEP[1].model(p), "answer_correct", p.card_texts)]


def design(given: dict) -> Design:
    """The primary comparison: the deepest depth minus the first, paired by QA pair."""
    p = declared(Parameters, given)
    _, _, qa = load_validated(p.corpus, p.qa_path, p.n_qa)
    depths = sorted(p.depths)
    return Design(units=len(qa), unit="QA pairs", items_per_unit=len(depths) * len(p.context_tokens),
                  comparison=f"depth {depths[-1]} − depth {depths[0]}", contrast=("depth", depths[-1], depths[0]))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="01_lost_in_the_middle", plan=plan, parameters=Parameters, prepare=prepare,
    run=run_depth_sweep,
    judged_rate="answer correct (01)", design=design,
    rebuild_prompt=rebuild_prompt,
    # What two runs must share to be compared; the model (and the prompt tested) is what a comparison is for.
    # The judge is the ruler, so it is shared too.
    comparable=("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "depths", "seed", "max_answer_tokens"),
    series=Series(key=("qa_id", "context_tokens", "depth"), value="judge_correct", x="depth",
                  value_label="judge accuracy",
                  x_label="depth of the answer document (%)", cluster="qa_id", unit="QA pairs",
                  labels=("answer_correct", ("question", "gold", "response"))),
    description="Lost in the middle: judge accuracy against the depth of the answer document (and the length)"))
