"""Notebook 01 as one registered experiment: how it is planned, compared and its prompts rebuilt."""

from __future__ import annotations

from ..experiments import Design, Experiment, Series, register
from ..models import Request, budget_counters
from ..planning.plan import one_at_a_time_local
from ..planning.stages import answers_and_judges, named, planned_replies
from ..scoring.judge_card import planned_card
from ..qa import load_validated
from ..qa.closed_book import closed_book_samples
from ..runs.declared import declared
from ..models.judge_choice import judge_spec
from ..scoring.judges import judge_requests
from .needles import needle_request, needle_trials
from .parameters import Parameters
from .sweep import EXPERIMENT, prepare, rebuild_prompt, run_depth_sweep


def plan(notebook: str, p: dict) -> list[dict]:
    """The run's own samples (exact answer prompts, looked up in the cache) and a judge call each (exact where the
    answer is cached, else priced by the judge's template); the multi-needle and closed-book samples alike."""
    model, judge = p["model"], judge_spec(p["model"], p["judge_model"])
    validated = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    _, pool, qa = validated
    count, text = budget_counters(model)
    # The run's own trials; similar distractors would need the embedder (a model) to choose: planned as random ones.
    trials = prepare(declared(Parameters, p), validated, similar=False)
    judging = judge_requests(p["self_consistency"])
    answer = Request(max_tokens=p["max_answer_tokens"])  # as sweep.run asks
    rows = answers_and_judges(notebook, EXPERIMENT, model, judge, trials, answer, judging,
                              reuse_prefix=one_at_a_time_local(model, p))
    for k in (k for k in p["needles"] if k > 1):  # the run's own multi-needle samples, exact prompts
        needled = needle_trials(qa, pool, [k], p["context_tokens"], p["seed"], count, text)
        rows.append(planned_replies(notebook, EXPERIMENT, "multi-needle answer", model, [s.input for s in needled],
                                    needle_request(p["max_answer_tokens"], k)))
        rows[-1] = named(rows[-1], f"answer, {k} needles")
    if p["closed_book"]:  # the run's own closed-book samples: exact prompts, a judge call each
        closed = answers_and_judges(notebook, EXPERIMENT, model, judge, closed_book_samples(qa), answer, judging,
                                    stage="closed-book answer")
        rows += [named(closed[0], "answer, closed book"), named(closed[1], "judge, closed book")]
    return rows + [planned_card(notebook, EXPERIMENT, judge, "answer_correct", p["card_texts"])]


def design(p: dict) -> Design:
    """The primary comparison: the deepest depth minus the first, paired by QA pair."""
    _, _, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    depths = sorted(p["depths"])
    return Design(units=len(qa), unit="QA pairs", items_per_unit=len(depths) * len(p["context_tokens"]),
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
