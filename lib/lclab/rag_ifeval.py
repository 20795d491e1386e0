"""RAG-IFEval: answer each sample from its documents, then score the answer by rule.

    python -m lclab.rag_ifeval --model_config model.json [--shuffle_context true] [--log_path log.jsonl]

The options are the benchmark's own (see `python -m lclab.rag_ifeval --help`).
A model config is a JSON object whose `model` is a gateway spec
(`local/qwen2.5-coder-1.5b`), a .gguf file, a Hugging Face model directory, or
a served model's name together with `api_base`. Answers go through the gateway,
so they are cached: a rerun re-scores without calling the model.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from . import gateway
from .errors import MissingAPIKeyError
from .ifeval_data import DataError, Sample, load_badwords, load_documents, load_samples
from .ifeval_models import ModelConfig, model_config
from .ifeval_rules import Answer, Judge, aggregate, pooled
from .parallel import map_items
from .paths import repo_path
from .runs import run_dir
from .stats import bootstrap_mean_ci

DATA = repo_path("data/rag_ifeval")
DEFAULT_PROMPT = Path(__file__).with_name("prompts") / "rag_ifeval.jinja"
SYSTEM_MESSAGE = "Jesteś pomocnym asystentem udzielającym odpowiedzi w języku polskim."
REFUSAL_MESSAGE = "Nie udało mi się odnaleźć odpowiedzi na pytanie"


@dataclass(frozen=True)
class Options:
    """The benchmark's run options (everything but the model), with its defaults."""

    docs_path: str = str(DATA / "documents.jsonl")
    eval_path: str = str(DATA / "samples.json")
    prompt: str = str(DEFAULT_PROMPT)
    shuffle_context: bool = False
    shuffle_seed: int = 0  # the shuffle of each sample is drawn from (seed, sample id) and logged
    system_message: str = SYSTEM_MESSAGE  # "" sends none; text completion never sends one
    refusal_message: str = REFUSAL_MESSAGE
    log_path: str | None = None
    text_completion: bool = False
    badwords_path: str = str(DATA / "badwords.txt")


def load_template(path: str | Path):
    """The Jinja prompt template; a template naming an unknown variable fails when rendered."""
    import jinja2

    try:
        text = Path(path).read_text(encoding="utf-8").strip()
        return jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False).from_string(text)
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(f"prompt template {path}: {err}") from err
    except jinja2.TemplateSyntaxError as err:
        raise DataError(f"prompt template {path}, line {err.lineno}: {err.message}") from err


def context_order(sample: Sample, shuffle: bool, seed: int) -> tuple[str, ...]:
    """The sample's documents in prompt order: as listed, or shuffled by (seed, sample id)."""
    if not shuffle:
        return sample.context
    order = list(sample.context)
    random.Random(f"{seed}:{sample.id}").shuffle(order)
    return tuple(order)


def build_prompt(template, sample: Sample, order: tuple[str, ...], docs: dict[str, str],
                 refusal_message: str) -> str:
    """The user prompt: the template given the question, the documents in `order` and the refusal phrase."""
    import jinja2

    try:
        return template.render(question=sample.question, docs=[docs[d] for d in order],
                               refusal_message=refusal_message)
    except jinja2.UndefinedError as err:
        raise DataError(f"prompt template: {err.message}; it may use question, docs and refusal_message") from err


def run_model(config: ModelConfig, samples: list[Sample], docs: dict[str, str], options: Options,
              quiet: bool = False) -> list[dict]:
    """Answer and score every sample; one row per sample, written to options.log_path as it finishes.

    A sample whose call fails gets a row with `error` and no scores (it is left
    out of the aggregates and counted, never scored 0); the others go on. A
    missing API key stops the run at once, since every call would fail alike.
    """
    template = load_template(options.prompt)
    judge = Judge(options.refusal_message, load_badwords(options.badwords_path))
    lock = threading.Lock()
    log = None
    if options.log_path:
        Path(options.log_path).parent.mkdir(parents=True, exist_ok=True)
        log = open(options.log_path, "w", encoding="utf-8")

    def write(row: dict) -> dict:
        if log is not None:
            with lock:
                log.write(json.dumps(row, ensure_ascii=False) + "\n")
                log.flush()
        return row

    def answer(sample: Sample) -> dict:
        order = context_order(sample, options.shuffle_context, options.shuffle_seed)
        row = {"model": config.label, "id": sample.id, "question": sample.question, "context": list(order)}
        try:
            prompt = build_prompt(template, sample, order, docs, options.refusal_message)
            reply = gateway.complete(
                config.spec, prompt, stage="rag_ifeval answer",
                system=None if options.text_completion else (options.system_message or None),
                max_tokens=config.max_tokens, temperature=config.temperature,
                text_completion=options.text_completion, retry=config.retry)
        except (MissingAPIKeyError, DataError):
            raise  # every sample would fail alike
        except Exception as err:  # noqa: BLE001  (recorded in the row and the log, never scored)
            return write({**row, "error": f"{type(err).__name__}: {err}"})
        text = reply.text
        answer = Answer(text, order)
        return write({
            **row,
            "answer": text,
            "scores": judge.score(answer, sample.expect),
            "normalized": answer.normalized,
            "len_chars": len(text),
            "len_words": len(answer.normalized.split()),
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "cached": reply.cached,
            "finish_reason": reply.finish_reason,
        })

    try:
        outcomes = map_items(answer, samples, workers=config.threads, desc=config.label, quiet=quiet,
                             stop_on=(MissingAPIKeyError, DataError))
    finally:
        if log is not None:
            log.close()
    return [o.value for o in outcomes]


def summary(rows: list[dict]) -> pd.DataFrame:
    """One row per metric: mean, how many scores it averages, a bootstrap 95 % CI of the mean;
    `attrs["failed"]` counts the samples without an answer (left out, not scored 0)."""
    answered = [{**r["scores"], "len_chars": r["len_chars"], "len_words": r["len_words"]}
                for r in rows if not r.get("error")]
    means = aggregate(answered)
    table = pd.DataFrame([
        {"metric": k, "score": means[k][0], "n": means[k][1],
         **dict(zip(("lo", "hi"), bootstrap_mean_ci(v) if not k.startswith("len_") else (None, None)))}
        for k, v in pooled(answered).items()
    ])
    table.attrs["failed"] = sum(1 for r in rows if r.get("error"))
    return table


def run_models(models: list, options: Options, run_name: str, max_tokens: int = 512,
               n_samples: int = 0) -> list[dict]:
    """Run several models (specs or model-config objects) on the benchmark; rows of all of them.

    Each model's per-sample log goes to results/rag_ifeval/<run_name>/<model label>.jsonl.
    `max_tokens` applies to models given as bare specs; `n_samples` > 0 keeps only the first samples.
    """
    docs = load_documents(options.docs_path)
    samples = load_samples(options.eval_path, docs)[:n_samples or None]
    out = run_dir("rag_ifeval", run_name)
    configs = [model_config(m if isinstance(m, dict) else {"model": m, "max_tokens": max_tokens}) for m in models]
    rows = []
    for config in configs:
        log = out / (re.sub(r"[^\w.-]+", "_", config.label).strip("_") + ".jsonl")
        rows += run_model(config, samples, docs, replace(options, log_path=str(log)))
    return rows


def sample_table(rows: list[dict]) -> pd.DataFrame:
    """One row per (model, sample): the answer, every condition's score, or the error."""
    return pd.DataFrame([
        {"model": r["model"], "id": r["id"], "answer": r.get("answer"), **r.get("scores", {}),
         "error": r.get("error")} for r in rows
    ])


def model_summaries(rows: list[dict]) -> pd.DataFrame:
    """summary() of each model, stacked: model, metric, score, n, lo, hi; plus a `failed` row each."""
    frames = []
    for model in dict.fromkeys(r["model"] for r in rows):
        part = [r for r in rows if r["model"] == model]
        table = summary(part)
        failed = pd.DataFrame([{"metric": "failed", "score": table.attrs["failed"], "n": len(part)}])
        frames.append(pd.concat([table, failed], ignore_index=True).assign(model=model))
    return pd.concat(frames, ignore_index=True)


def score_table(rows: list[dict]) -> pd.DataFrame:
    """Every metric per model (rows: metric in the benchmark's order; columns: score and n per model)."""
    long = model_summaries(rows)
    wide = long.pivot(index="metric", columns="model", values=["score", "n"])
    columns = [(value, model) for value in ("score", "n") for model in dict.fromkeys(long.model)]
    return wide.reindex(index=list(dict.fromkeys(long.metric)), columns=columns)


def format_summary(table: pd.DataFrame) -> str:
    """The console report: percentages for scores, plain numbers for lengths, counts in brackets."""
    lines = []
    for row in table.itertuples():
        if not row.n:
            shown = "-"
        elif row.metric.startswith("len_"):
            shown = f"{row.score:.0f}"
        else:
            shown = f"{100 * row.score:.2f}%"
        lines.append(f"{row.metric:<15} {shown} ({row.n})")
    lines.append(f"{'failed':<15} {table.attrs.get('failed', 0)}")
    return "\n".join(lines)


def _flag(text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")


def main(argv: list[str] | None = None) -> int:
    defaults = Options()
    p = argparse.ArgumentParser(prog="python -m lclab.rag_ifeval", description=__doc__.split("\n\n")[0])
    p.add_argument("--model_config", required=True, help="JSON file describing the model")
    p.add_argument("--docs_path", default=defaults.docs_path)
    p.add_argument("--eval_path", default=defaults.eval_path)
    p.add_argument("--prompt", default=defaults.prompt, help="Jinja template (question, docs, refusal_message)")
    p.add_argument("--shuffle_context", type=_flag, nargs="?", const=True, default=False)
    p.add_argument("--shuffle_seed", type=int, default=defaults.shuffle_seed)
    p.add_argument("--system_message", default=defaults.system_message)
    p.add_argument("--refusal_message", default=defaults.refusal_message)
    p.add_argument("--log_path", default=None, help="per-sample JSONL (answer, normalized answer, scores)")
    p.add_argument("--text_completion", type=_flag, nargs="?", const=True, default=False)
    p.add_argument("--badwords_path", default=defaults.badwords_path)
    args = vars(p.parse_args(argv))
    try:
        config = model_config(json.loads(Path(args.pop("model_config")).read_text(encoding="utf-8")))
        options = Options(**args)
        docs = load_documents(options.docs_path)
        rows = run_model(config, load_samples(options.eval_path, docs), docs, options)
    except (OSError, ValueError, MissingAPIKeyError) as err:
        print(f"rag_ifeval: {err}", file=sys.stderr)
        return 2
    print(format_summary(summary(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
