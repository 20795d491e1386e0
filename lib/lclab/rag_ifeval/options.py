"""RAG-IFEval's run options, defined once: the CLI is built from these fields and notebook 07's parameters
default to them (a test checks that every parameter it shares with them has the same default).

Also what the options decide about a prompt: the Jinja template, the order of
a sample's documents, the rendered user prompt.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ..models.configs import DEFAULT_MAX_TOKENS
from ..paths import repo_path
from ..prompts import template
from .data import DataError, BenchmarkItem

# Paths relative to the repo root, as notebook parameters give them; `resolved()` makes them absolute.
DATA = "data/rag_ifeval"
PATH_FIELDS = ("docs_path", "eval_path", "prompt", "badwords_path")


@dataclass(frozen=True)
class Options:
    """The benchmark's run options (everything but the model)."""

    docs_path: str = f"{DATA}/documents.jsonl"  # documents, one JSON object per line with id and contents
    eval_path: str = f"{DATA}/samples.json"  # samples: a JSON list (or JSONL) of id, question, context, expect
    prompt: str = "lib/lclab/rag_ifeval/prompts/rag_ifeval.jinja"  # Jinja template: question, docs, refusal_message
    shuffle_context: bool = False  # show each sample's documents in a seeded random order (logged per sample)
    shuffle_seed: int = 0  # seed of that order, drawn per (seed, sample id)
    system_message: str = template("rag_ifeval_system")  # "" sends none; text completion never sends one
    refusal_message: str = template("rag_ifeval_refusal")  # the phrase that counts as a refusal
    log_path: str | None = None  # per-sample JSONL: context order, answer, normalized answer, scores
    text_completion: bool = False  # send the bare prompt as text to continue (no chat template)
    badwords_path: str = f"{DATA}/badwords.txt"  # offensive-word dictionary for `safe`, one word per line
    max_tokens: int = DEFAULT_MAX_TOKENS  # answer length limit for a model whose config does not set one

    def resolved(self) -> "Options":
        """The same options with relative paths read from the repo root (notebooks run from notebooks/)."""
        paths = {f: str(repo_path(getattr(self, f))) for f in PATH_FIELDS}
        return Options(**{**self.__dict__, **paths})


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


def context_order(sample: BenchmarkItem, shuffle: bool, seed: int) -> tuple[str, ...]:
    """The sample's documents in prompt order: as listed, or shuffled by (seed, sample id)."""
    if not shuffle:
        return sample.context
    order = list(sample.context)
    random.Random(f"{seed}:{sample.id}").shuffle(order)
    return tuple(order)


def build_prompt(template, sample: BenchmarkItem, order: tuple[str, ...], docs: dict[str, str],
                 refusal_message: str) -> str:
    """The user prompt: the template given the question, the documents in `order` and the refusal phrase."""
    import jinja2

    try:
        return template.render(question=sample.question, docs=[docs[d] for d in order],
                               refusal_message=refusal_message)
    except jinja2.UndefinedError as err:
        raise DataError(f"prompt template: {err.message}; it may use question, docs and refusal_message") from err
