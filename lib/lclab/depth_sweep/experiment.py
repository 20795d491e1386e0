"""Notebook 01 as one registered experiment: the sample sets its stages ask (planned by the generic planner), how
its runs are compared and its prompts rebuilt."""

from __future__ import annotations

from ..experiments import Design, Experiment, SampleSet, Series, register
from ..models import budget_counters
from ..qa import closed_book, load_validated
from ..runs.declared import declared
from ..scoring.judge_card import card_rows
from .needles import needle_trials
from .parameters import Parameters
from .stages import SWEEP, needle_answer
from .sweep import EXPERIMENT, prepare, rebuild_prompt, run_depth_sweep


def sample_sets(p: Parameters) -> list[SampleSet]:
    """The run's own samples, as its stages ask them: the sweep (exact answer prompts, looked up in the cache; a
    judge call each, exact where the answer is cached, else priced by the judge's template), each k of the
    multi-needle trials, and the closed-book samples."""
    validated = load_validated(p.corpus, p.qa_path, p.n_qa)
    _, pool, qa = validated
    count, text = budget_counters(p.model)
    # The run's own trials; similar distractors would need the embedder (a model) to choose: planned as random ones.
    sets = [SampleSet(prepare(p, validated, similar=False), SWEEP)]
    sets += [SampleSet(needle_trials(qa, pool, [k], p.context_tokens, p.seed, count, text), (needle_answer(k),),
                       (f"answer, {k} needles",), in_order=False) for k in p.needles if k > 1]
    if p.closed_book:
        sets.append(SampleSet(closed_book.closed_book_samples(qa), closed_book.STAGES,
                              ("answer, closed book", "judge, closed book"), in_order=False))
    return sets


def design(given: dict) -> Design:
    """The primary comparison: the deepest depth minus the first, paired by QA pair."""
    p = declared(Parameters, given)
    _, _, qa = load_validated(p.corpus, p.qa_path, p.n_qa)
    depths = sorted(p.depths)
    return Design(units=len(qa), unit="QA pairs", items_per_unit=len(depths) * len(p.context_tokens),
                  comparison=f"depth {depths[-1]} − depth {depths[0]}", contrast=("depth", depths[-1], depths[0]))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="01_lost_in_the_middle", parameters=Parameters, prepare=prepare, run=run_depth_sweep,
    stages=SWEEP, sample_sets=sample_sets, cards=card_rows(EXPERIMENT, SWEEP[1], "answer_correct"),
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
