"""RAG-IFEval from a shell, with the benchmark's own options:

    python -m lclab.rag_ifeval --model_config model.json [--shuffle_context true] [--log_path log.jsonl]

The options are the fields of `Options` (their comments are the --help text).
A model config is a JSON object whose `model` is a gateway spec
(`local/qwen2.5-coder-1.5b`), a .gguf file, a Hugging Face model directory, or
a served model's name together with `api_base`. With --log_path, a rerun
resumes from the log and re-scores from the model cache.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import simple_parsing  # builds the argparse options from the dataclass fields and their comments

from ..models import MissingAPIKeyError
from ..models.configs import model_config
from .data import load_documents, load_samples
from .options import PATH_FIELDS, Options
from .run import run_model
from .tables import format_summary, summary


def parse(argv: list[str] | None) -> tuple[str, Options]:
    parser = simple_parsing.ArgumentParser(
        prog="python -m lclab.rag_ifeval", description=__doc__.split("\n\n")[0],
        add_option_string_dash_variants=simple_parsing.DashVariant.UNDERSCORE)
    parser.add_argument("--model_config", required=True, help="JSON file describing the model")
    parser.add_arguments(Options, dest="options")
    args = parser.parse_args(argv)
    options: Options = args.options
    # A path typed in a shell is relative to where the shell is; the defaults are the repo's files.
    given = {f: str(Path(getattr(options, f)).resolve()) for f in PATH_FIELDS
             if getattr(options, f) != getattr(Options, f)}
    return args.model_config, dataclasses.replace(options, **given).resolved()


def main(argv: list[str] | None = None) -> int:
    model_path, options = parse(argv)
    try:
        config = model_config(json.loads(Path(model_path).read_text(encoding="utf-8")), options.max_tokens)
        docs = load_documents(options.docs_path)
        rows = run_model(config, load_samples(options.eval_path, docs), docs, options)
    except (OSError, ValueError, MissingAPIKeyError) as err:
        print(f"rag_ifeval: {err}", file=sys.stderr)
        return 2
    print(format_summary(summary(rows)))
    return 0
