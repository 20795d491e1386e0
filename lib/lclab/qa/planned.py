"""The plan of QA generation (00's pairs, 06's single-chunk questions): each passage's exact generation prompt,
looked up in the cache, and its validation prompt, built exactly where the generated pair is cached."""

from __future__ import annotations

from ..models import count_prompt_tokens
from ..models.backends import shared_prefix_tokens
from ..models.jsonparse import JSONParseError, parse_json_object
from ..planning.plan import one_at_a_time_local
from ..planning.stages import (Judged, cached_answers, estimated, fan_out, merged, planned_judges, planned_replies,
                               reply_tokens)
from ..text.corpus import Document
from .generate import (AGAIN_STAGE, GENERATION, GENERATION_TOKENS, MAX_ASKS, VALIDATION, again_messages,
                       generation_samples, pair_failure)


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
                       low_overlap: bool = False, workers: int = 1) -> tuple[list[dict], list[dict | None]]:
    """(the generation, asking-again and validation plan rows, each passage's final pair where its generation is
    cached). `workers`: the passages' concurrent calls (one at a time, a local model keeps each conversation's
    first turn for the pair asked again)."""
    prompts = [s.input for s in generation_samples(chosen, low_overlap)]
    generation = planned_replies(notebook, experiment, "qa_generation", model, prompts, GENERATION)
    pairs = [cached_pair(text) for text in cached_answers(model, prompts, GENERATION)]
    again, pairs = planned_asking_again(notebook, experiment, model, chosen, prompts, pairs,
                                        one_at_a_time_local(model, workers))
    items = [Judged({"context": passage.text}, pair) for passage, pair in zip(chosen, pairs)]
    validation = planned_judges(notebook, experiment, "qa_validation", model, "qa_supported", ("question", "answer"),
                                items, "qa_generation", model, GENERATION_TOKENS, [VALIDATION])
    return [generation, *([again] if again else []), validation], pairs


def planned_asking_again(notebook: str, experiment: str, model: str, chosen: list[Document], prompts: list[str],
                         pairs: list[dict | None], reuse: bool = False) -> tuple[dict, list[dict | None]]:
    """The generation calls that ask again (generate.MAX_ASKS): where a pair is cached, its checks are run as the run
    runs them and each asking-again conversation is built exactly (and looked up); where it is not, the pairs
    asked again are priced at what earlier runs measured per pair, else the declared prior (lclab.planning.priors),
    each conversation at the first prompt plus a pair of the measured size. `reuse`: the conversation goes to a
    local model right after its first turn, which the model still holds: only the pair and the check named are
    read (a cold run of 00 on the 0.5B: 8 such calls of 3,332 prompt tokens, 2,231 for the 6 first turns)."""
    exact, final = [], []
    for passage, prompt, pair in zip(chosen, prompts, pairs):
        asks = 1
        while pair is not None and asks < MAX_ASKS:
            failed = pair_failure(passage, pair["question"], pair["answer"])
            if failed is None:
                break
            messages = again_messages(prompt, pair["question"], pair["answer"], failed)
            exact.append((prompt, messages))
            (text,) = cached_answers(model, [messages], GENERATION)
            pair, asks = cached_pair(text), asks + 1
        final.append(pair)
    held = [first for first, conversation in exact] if reuse else None
    rows = [planned_replies(notebook, experiment, AGAIN_STAGE, model, [c for _, c in exact], GENERATION,
                            held=held)] if exact else []
    unknown = [prompt for prompt, pair in zip(prompts, pairs) if pair is None]
    if unknown:
        per_pair, source = fan_out(experiment, "asked again per pair", AGAIN_STAGE, "qa_generation", model, 1)
        per_pair = min(per_pair, MAX_ASKS - 1)
        reply, _ = reply_tokens(experiment, "qa_generation", model, GENERATION_TOKENS)
        stand_in = " ".join(["word"] * max(1, round(reply / 2)))
        asked = [again_messages(p, stand_in, stand_in, "short_answer") for p in unknown]
        sizes = [count_prompt_tokens(model, messages) for messages in asked]
        kept = [shared_prefix_tokens(model, p, messages) if reuse else 0 for p, messages in zip(unknown, asked)]
        picks = [i % len(sizes) for i in range(round(len(sizes) * per_pair))]
        rows.append(estimated(notebook, AGAIN_STAGE, model, [sizes[i] for i in picks], reply, source,
                              request=GENERATION, kept=[kept[i] for i in picks]))
    return merged(rows) if rows else {}, final
