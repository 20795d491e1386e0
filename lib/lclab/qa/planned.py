"""The plan of QA generation (00's pairs, 06's single-chunk questions): each passage's exact generation prompt,
looked up in the cache, and its validation prompt, built exactly where the generated pair is cached."""

from __future__ import annotations

from ..models.jsonparse import JSONParseError, parse_json_object
from ..planning.stages import Judged, cached_answers, planned_judges, planned_replies
from ..text.corpus import Document
from .generate import GENERATION, GENERATION_TOKENS, VALIDATION, generation_samples


def cached_pair(reply: str | None) -> dict | None:
    """The question and answer of a cached generation reply, as the run reads them (None: not cached, or no pair)."""
    try:
        parsed = parse_json_object(reply) if reply is not None else None
    except JSONParseError:
        return None
    if not isinstance(parsed, dict) or not all(isinstance(parsed.get(k), str) for k in ("question", "answer")):
        return None
    return {"question": parsed["question"].strip(), "answer": parsed["answer"].strip()}


def planned_generation(notebook: str, experiment: str, model: str, chosen: list[Document],
                       low_overlap: bool = False) -> tuple[list[dict], list[dict | None]]:
    """(the generation and validation plan rows, each passage's pair where its generation is cached)."""
    prompts = [s.input for s in generation_samples(chosen, low_overlap)]
    generation = planned_replies(notebook, experiment, "qa_generation", model, prompts, GENERATION)
    pairs = [cached_pair(text) for text in cached_answers(model, prompts, GENERATION)]
    items = [Judged({"context": passage.text}, pair) for passage, pair in zip(chosen, pairs)]
    validation = planned_judges(notebook, experiment, "qa_validation", model, "qa_supported", ("question", "answer"),
                                items, "qa_generation", model, GENERATION_TOKENS, [VALIDATION])
    return [generation, validation], pairs
