"""The plan of QA generation (00's pairs, 06's single-chunk questions): the run's own procedure (generate.pair_of)
walked over the cache instead of the model.

Where a passage's generation reply is cached, every prompt the run would send after it is built exactly (the
asking again, each candidate's round trip and closed-book probe) and looked up; a probe not yet cached is
assumed to pass, so the calls a passing probe leads to are priced too. Where the generation reply is not cached,
the later calls are priced by their templates at the fan-outs earlier runs measured (else the declared priors,
lclab.planning.priors).
"""

from __future__ import annotations

import json

from ..models import count_prompt_tokens
from ..models.backends import shared_prefix_tokens
from ..models.jsonparse import JSONParseError, parse_json_object
from ..planning.plan import one_at_a_time_local
from ..planning.priced import cached_answers, estimated, fan_out, merged, planned_replies, reply_tokens
from ..text.corpus import Document
from ..text.headings import Where
from .checks import first_failed
from .generate import (AGAIN_STAGE, CLOSED_BOOK, GENERATION, PROBE, ROUND_TRIP, again_messages, closed_book_prompt,
                       generation_samples, pair_of, parse_pairs, round_trip_prompt)

FAN_OUTS = {ROUND_TRIP: "round trips per passage", CLOSED_BOOK: "closed-book probes per passage",
            AGAIN_STAGE: "asked again per pair"}


class NotCached(Exception):
    """A generation reply the plan cannot know: the passage's later calls are estimated."""


def cached_pairs(reply: str | None) -> list[tuple[str, str]] | None:
    """The candidates of a cached generation reply, as the run reads them (None: not cached, or none readable)."""
    try:
        return parse_pairs(parse_json_object(reply)) or None if reply is not None else None
    except JSONParseError:
        return None


def planned_generation(notebook: str, experiment: str, model: str, chosen: list[Document],
                       low_overlap: bool = False, workers: int = 1, where: dict[str, Where] | None = None
                       ) -> tuple[list[dict], list[dict | None]]:
    """(one plan row per stage: generation, asking again, round trip, closed book; each passage's final pair where
    its generation is cached, else None: its question, answer and whether it passes the removing checks, the
    set's duplicates aside)."""
    where = where or {}
    samples = generation_samples(chosen, low_overlap, where)
    rows = [planned_replies(notebook, experiment, "qa_generation", model, [s.input for s in samples], GENERATION)]
    asked: dict[str, list] = {AGAIN_STAGE: [], ROUND_TRIP: [], CLOSED_BOOK: []}
    finals, unknown = [], []
    for s in samples:
        def generate(prompt):
            if isinstance(prompt, list):
                asked[AGAIN_STAGE].append(prompt)
            (text,) = cached_answers(model, [prompt], GENERATION)
            pairs = cached_pairs(text)
            if pairs is None:
                raise NotCached
            return text, pairs

        def ask(stage, prompt, expected):
            asked[stage].append(prompt)
            (text,) = cached_answers(model, [prompt], PROBE)
            return text.strip() if text is not None else expected

        try:
            place = where.get(s.id) or Where(s.source.source or s.id, "")
            row = pair_of(s.source, place, low_overlap, generate, ask)
            kept = first_failed({**row, "passage": s.source.text, "title": place.title}) is None
            finals.append({"question": row["question"], "answer": row["answer"], "kept": kept})
        except NotCached:
            finals.append(None)
            unknown.append((s.source, s.input))
    reuse = one_at_a_time_local(model, workers)
    for stage in (AGAIN_STAGE, ROUND_TRIP, CLOSED_BOOK):
        held = [m[0]["content"] for m in asked[stage]] if reuse and stage == AGAIN_STAGE else None
        parts = [planned_replies(notebook, experiment, stage, model, asked[stage],
                                 GENERATION if stage == AGAIN_STAGE else PROBE, reuse_prefix=reuse, held=held)] \
            if asked[stage] else []
        if unknown:
            parts.append(_estimated(notebook, experiment, model, stage, unknown, reuse))
        row = merged([r for r in parts if r])
        if row:
            rows.append(row)
    return rows, finals


def _estimated(notebook: str, experiment: str, model: str, stage: str, unknown: list, reuse: bool) -> dict:
    """The calls of `stage` for passages whose generation is not cached (`unknown`: (passage, its generation
    prompt)): per passage its fan-out, each prompt its template with the passage and a question of the measured
    size; one at a time, a passage's later round trips keep its passage read and an asking again its first turn."""
    per, source = fan_out(experiment, FAN_OUTS[stage], stage, "qa_generation", model, 1)
    pair, _ = reply_tokens(experiment, "qa_generation", model, GENERATION.max_tokens)
    question = " ".join(["word"] * max(1, round(pair / 6)))  # a reply holds three pairs: a question is ~1/6
    request = GENERATION if stage == AGAIN_STAGE else PROBE
    reply, _ = reply_tokens(experiment, stage, model, request.max_tokens)
    one, keeps = [], []
    for passage, first in unknown:
        if stage == CLOSED_BOOK:
            prompt, keep = closed_book_prompt(question), 0
        elif stage == ROUND_TRIP:
            prompt = round_trip_prompt(passage, question)
            keep = count_prompt_tokens(model, prompt) - count_prompt_tokens(model, question) - 4 if reuse else 0
        else:
            stand_in = json.dumps({"pairs": [{"question": question, "answer": question}] * 3})
            prompt = again_messages(first, stand_in, "question_form")
            keep = shared_prefix_tokens(model, first, prompt) if reuse else 0
        one.append(count_prompt_tokens(model, prompt))
        keeps.append(keep)
    n = round(per * len(unknown))
    sizes = [one[i % len(one)] for i in range(n)]
    # The first round trip of a passage reads it whole; the ones after it only their question.
    kept = [keeps[i % len(one)] if stage != ROUND_TRIP or i >= len(one) else 0 for i in range(n)]
    return estimated(notebook, stage, model, sizes, reply, source, request=request, kept=kept)
