"""RAG-IFEval: answer each sample from its documents, then score the answer by rule.

Each benchmark item becomes a `Sample` holding the exact messages the model is sent (`prepare`), written to
`<model>.samples.jsonl` before any call; `--plan` counts the same samples.

Answers go through the gateway (cached) and the trial runner: each sample's row
is appended to the model's log as it finishes, so a killed run resumes without
repeating a finished sample, and a rerun re-scores from the cache.
"""

from __future__ import annotations

import dataclasses
import re

from ..models import MissingAPIKeyError
from ..models.configs import ModelConfig, model_config
from ..runs.folders import ItemLog, fingerprint
from ..pipeline import Given
from ..runs.runner import Result, Run, answer_columns, executed, headline, run_trials
from ..runs.samples import Sample
from .data import BenchmarkItem, DataError, load_badwords, load_documents, load_samples
from .options import Options, build_prompt, context_order, load_template
from .rules import Answer, Judge
from .stages import ANSWER, Arm
from .tables import model_summaries, models_paired, sample_table, score_table

EXPERIMENT = "rag_ifeval"
KEY = ("model", "id", "fingerprint")


def options_of(p) -> Options:
    """The run options among notebook 07's Parameters, with paths read from the repo root."""
    return Options(**{f: getattr(p, f) for f in Options.__dataclass_fields__ if hasattr(p, f)}).resolved()


def prepare(p) -> list[Sample]:
    """The samples a run under Parameters `p` asks every model (`samples_for` of the benchmark's first
    `n_samples`): what the run answers and what the generic planner counts."""
    options = options_of(p)
    docs = load_documents(options.docs_path)
    return samples_for(load_samples(options.eval_path, docs)[:p.n_samples or None], docs, options)


def arms(p) -> list[Arm]:
    """Each model of `p.models` under its own config: the parameters the answer stage is run and planned under."""
    options = options_of(p)
    return [Arm(model_config(m, options.max_tokens), options) for m in p.models]


def samples_for(items: list[BenchmarkItem], docs: dict[str, str], options: Options) -> list[Sample]:
    """Each benchmark item as the trial every model is asked: the exact messages (or the text of a text
    completion), the item's `expect` as target, its question and document order as metadata."""
    options = options.resolved()
    template = load_template(options.prompt)
    system = [] if options.text_completion or not options.system_message else [
        {"role": "system", "content": options.system_message}]
    out = []
    for item in items:
        order = context_order(item, options.shuffle_context, options.shuffle_seed)
        prompt = build_prompt(template, item, order, docs, options.refusal_message)
        out.append(Sample(id=item.id, input=prompt if options.text_completion else
                          system + [{"role": "user", "content": prompt}], target=item.expect,
                          metadata={"question": item.question, "context": list(order), "cluster": item.id}))
    return out


def run_model(config: ModelConfig, items: list[BenchmarkItem], docs: dict[str, str], options: Options,
              quiet: bool = False, run: Run | None = None) -> list[dict]:
    """Answer and score every sample; one row per sample, appended to options.log_path as it finishes.

    A sample whose call fails gets a row with `error` and no scores (it is left
    out of the aggregates and counted, never scored 0); the others go on. A
    missing API key or a broken template stops the run at once, since every
    call would fail alike. Samples already scored in the log are not asked again
    (and counted as resumed by `run`, when the samples run inside one).
    """
    options = options.resolved()
    judge = Judge(options.refusal_message, load_badwords(options.badwords_path))
    scoring = (options.refusal_message, sorted(judge.badwords))
    samples = samples_for(items, docs, options)
    arm = Arm(config, options)

    def key(sample: Sample) -> tuple:
        # The fingerprint reads as it did when the system message was a separate argument (same cache, same log).
        system = None if options.text_completion else (options.system_message or None)
        prompt = sample.input if options.text_completion else sample.input[-1]["content"]
        made_with = (config.spec, config.max_tokens, config.temperature, system, options.text_completion)
        return (config.label, sample.id, fingerprint(made_with, prompt, sample.target, scoring))

    log = ItemLog(options.log_path, KEY)
    how = dict(key=key, describe=lambda s: {"question": s["question"], "context": s["context"]},
               steps=executed([SCORED.but(name=config.label)], Given(arm, built={"rules": judge})), quiet=quiet,
               stop_on=(MissingAPIKeyError, DataError))
    if run is not None:
        run.trials(samples, log=log, **how)
    else:  # the command line (python -m lclab.rag_ifeval) runs without a run folder
        run_trials(samples, log=log, **how)
    return log.latest_rows(key(s) for s in samples)  # as logged: a failed row has an error and no scores


def scored_answer(given: Given, sample: Sample, row: dict) -> dict:
    """A sample's answer by the arm's model, scored by the benchmark's rules (`given.built["rules"]`)."""
    reply = ANSWER.ask(given.p, sample)
    scored = given.built["rules"].evaluate(Answer(reply.text, tuple(sample["context"])), sample.target)
    return {**answer_columns(reply), "finish_reason": reply.finish_reason,
            **scored.columns("scores", answer="normalized"),
            "len_chars": len(reply.text), "len_words": len(scored.answer.split())}


# The answer as the run executes it, under each model's label (its progress bar and its errors' prefix).
SCORED = ANSWER.but(write=scored_answer)


def log_name(config: ModelConfig) -> str:
    """The model's log file in a run folder: its label, made safe for a file name."""
    return re.sub(r"[^\w.-]+", "_", config.label).strip("_") + ".jsonl"


def run_rag_ifeval(p) -> Result:
    """Notebook 07 from its declared Parameters (the notebook passes the same values by name to `run_models`)."""
    return run_models(**dataclasses.asdict(p))


def run_models(models: list, run_name: str, n_samples: int = 0, **options) -> Result:
    """Notebook 07: every model (a spec or a model-config object) on the benchmark, with `Options` fields.

    Each model's per-sample log goes to results/rag_ifeval/<run_name>/<model label>.jsonl.
    `n_samples` > 0 keeps only the first samples.
    """
    if not models:
        raise ValueError("models is empty: give at least one model spec or model-config object")
    options = Options(**options).resolved()
    parameters = {"models": models, "n_samples": n_samples, **options.__dict__}
    with Run(EXPERIMENT, run_name, parameters=parameters) as run:
        docs = load_documents(options.docs_path)
        samples = load_samples(options.eval_path, docs)[:n_samples or None]
        configs = [model_config(m, options.max_tokens) for m in models]
        rows = []
        for config in configs:
            log = Options(**{**options.__dict__, "log_path": str(run.dir / log_name(config))})
            rows += run_model(config, samples, docs, log, run=run)
        summaries = model_summaries(rows)
        paired, line = models_paired(rows)
        notes = [f"{len(samples)} samples x {len(configs)} models; per-sample logs in {run.dir}",
                 f"{run.ran + run.resumed} trials: {run.resumed} already done (resumed), {run.ran} run now", line]
        total = summaries[summaries["metric"] == "total"]
        first = total.iloc[0] if len(total) else {}
        return run.result(summaries, items=sample_table(rows), notes=notes,
                          headline=headline(f"total, {first.get('model', '?')}", first.get("score"), first.get("lo"),
                                            first.get("hi")),
                          tables={"score_table": score_table(rows), "models_paired": paired}, data={"rows": rows})
