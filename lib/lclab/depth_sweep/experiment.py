"""Notebook 01 as one registered experiment: how it is planned, compared and its prompts rebuilt."""

from __future__ import annotations

from ..experiments import Design, Experiment, Series, register
from ..models import budget_counters
from ..planning.plan import answers_and_judges, one_at_a_time_local, row
from ..qa import load_validated
from ..qa.closed_book import closed_book_samples
from .parameters import Parameters
from .sweep import EXPERIMENT, build_trials, rebuild_prompt


def plan(notebook: str, p: dict) -> list[dict]:
    """The exact answer prompts (built as the run builds them, looked up in the cache) and a judge call each."""
    model, judge = p["model"], p["judge_model"] or p["model"]
    _, pool, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    count, text = budget_counters(model)
    # Similar distractors would need the embedder (a model) to choose: their prompts are planned as random ones.
    trials = build_trials(qa, pool, p["context_tokens"], p["depths"], p["seed"], count, text,
                          p.get("haystack", "per_pair")) * len(p.get("distractors", ["random"]))
    rows = answers_and_judges(notebook, model, judge, [t.prompt for t in trials], p["max_answer_tokens"],
                              1 + p.get("self_consistency", 0), reuse_prefix=one_at_a_time_local(model, p))
    for k in (k for k in p.get("needles", [1]) if k > 1):
        groups = len(qa) // k
        calls = groups * len(p["context_tokens"])
        rows.append(row(notebook, f"answer, {k} needles (estimated)", model, calls, 0,
                        sum(p["context_tokens"]) * groups, calls * p["max_answer_tokens"] * k,
                        [(n, 0) for n in p["context_tokens"]] * groups))
    if p.get("closed_book"):  # the run's own closed-book samples: exact prompts, a judge call each
        closed = answers_and_judges(notebook, model, judge, [s.input for s in closed_book_samples(qa)],
                                    p["max_answer_tokens"], 1 + p.get("self_consistency", 0))
        rows += [dict(r, stage=f"{r['stage']}, closed book") for r in closed]
    return rows


def design(p: dict) -> Design:
    """The primary comparison: the deepest depth minus the first, paired by QA pair."""
    _, _, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    depths = sorted(p["depths"])
    return Design(units=len(qa), unit="QA pairs", items_per_unit=len(depths) * len(p["context_tokens"]),
                  comparison=f"depth {depths[-1]} − depth {depths[0]}", contrast=("depth", depths[-1], depths[0]))


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, notebook="01_lost_in_the_middle", plan=plan, parameters=Parameters,
    judged_rate="answer correct (01)", design=design,
    rebuild_prompt=rebuild_prompt,
    # What two runs must share to be compared; the model (and the prompt tested) is what a comparison is for.
    # The judge is the ruler, so it is shared too.
    comparable=("judge_model", "corpus", "qa_path", "n_qa", "context_tokens", "depths", "seed", "max_answer_tokens"),
    series=Series(key=("qa_id", "context_tokens", "depth"), value="judge_correct", x="depth",
                  value_label="judge accuracy",
                  x_label="depth of the answer document (%)", cluster="qa_id", unit="QA pairs"),
    description="Lost in the middle: judge accuracy against the depth of the answer document (and the length)"))
