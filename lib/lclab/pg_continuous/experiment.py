"""Notebook 04 as one registered experiment: its plan and what makes two runs comparable."""

from __future__ import annotations

from ..experiments import Experiment, register
from ..models import cached
from ..models.jsonparse import JSONParseError, parse_json_object
from ..planning.priced import (cached_answers, estimated, fan_out, merged, named, planned_replies, reply_tokens,
                               template_prompt_tokens)
from ..prompts import render
from ..retrieval.chunking import Chunker
from ..runs.declared import declared
from ..scoring.logprob import score_request
from ..text.corpus import load_corpus
from .contexts import GENERATE_STAGE, GENERATION, GENERATION_TOKENS, generation_prompt, load_reviewed, pick_contexts
from .facts import (FACTS_STAGE, FACTS_TOKENS, SCORE_STAGE, STYLES, fact_samples, facts_prompt, facts_request,
                    unique_facts)
from .parameters import Parameters
from .run import EXPERIMENT, run_continuous

def plan(notebook: str, given: dict) -> list[dict]:
    """The run's own prompts, built as the run builds them and looked up in the cache: the generation over the
    four golden chunks, each fact extraction once the golden response is known (reviewed, or generated and
    cached), each (fact, context) score once the facts are; what is not known yet, priced by its template."""
    p = declared(Parameters, given)
    model = p.model
    chunks = Chunker(p.chunk_chars, "chars").split(load_corpus(p.corpus).documents)
    contexts = pick_contexts(chunks, p.essay, p.start, 4, p.n_noisy, p.seed)
    golden = [c for c in contexts if c.golden]
    prompt = generation_prompt(golden)
    rows = [planned_replies(notebook, EXPERIMENT, GENERATE_STAGE, model, [prompt], GENERATION)]
    reviewed = load_reviewed(p.reviewed_qa_path, golden) if p.reviewed_qa_path else None
    answer = (reviewed or _json(cached_answers(model, [prompt], GENERATION)[0]) or {}).get("answer")
    facts, fact_rows = {}, []
    for style, name in STYLES.items():
        if answer:  # the exact extraction prompt; its facts, where the reply is cached
            extraction = facts_prompt(style, answer)
            fact_rows.append(planned_replies(notebook, EXPERIMENT, FACTS_STAGE, model, [extraction],
                                             facts_request(style)))
            hit = cached(model, extraction, facts_request(style))
            listed = (_json(hit["text"]) or {}).get("facts") if hit else None
            if isinstance(listed, list):
                facts[style] = unique_facts(listed)[:p.max_facts or None]
        else:
            size, source = reply_tokens(EXPERIMENT, GENERATE_STAGE, model, GENERATION_TOKENS)
            reply, _ = reply_tokens(EXPERIMENT, FACTS_STAGE, model, FACTS_TOKENS)
            fact_rows.append(estimated(notebook, FACTS_STAGE, model,
                                       [template_prompt_tokens(model, name, {"response": size})], reply, source,
                                       request=facts_request(style)))
    rows.append(merged(fact_rows))
    known = fact_samples(facts, contexts)
    score_rows = [planned_replies(notebook, EXPERIMENT, SCORE_STAGE, model, [s.input for s in known], score_request(),
                                  reuse_prefix=True)] if known else []
    unknown = [style for style in STYLES if style not in facts]
    if unknown:  # facts not known yet: each priced by its context's exact text and a fact of the list's share
        # how many facts a list holds is the extraction's to say: earlier runs' mean, else the declared prior
        per_list, source = fan_out(EXPERIMENT, "facts per list", SCORE_STAGE, FACTS_STAGE, model, len(contexts))
        per_list = min(per_list, p.max_facts) if p.max_facts else per_list
        fact_size = reply_tokens(EXPERIMENT, FACTS_STAGE, model, FACTS_TOKENS)[0] / max(per_list, 1.0)
        # Each fact stands in as text of that size, in the run's order (context by context), so the plan reads
        # each context once and every later fact's prompt from the context on, as llama.cpp's KV cache does.
        per_context = round(per_list * len(unknown))
        stand_ins = [f"(fact {j} not extracted yet)" + " word" * max(0, round(fact_size) - 8)
                     for j in range(per_context)]
        prompts = [render("fact_in_context", context=c.chunk.text, fact=fact) for c in contexts for fact in stand_ins]
        score_rows.append(named(planned_replies(notebook, EXPERIMENT, SCORE_STAGE, model, prompts, score_request(),
                                                reuse_prefix=True),
                                f"score, {per_list:.1f} {source} (estimated; replies: one token)"))
    return rows + [merged(score_rows)]


def _json(text: str | None) -> dict | None:
    try:
        return parse_json_object(text) if text else None
    except JSONParseError:
        return None


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=run_continuous, notebook="04_pg_continuous_retrieval", plan=plan, parameters=Parameters,
    comparable=("corpus", "essay", "start", "n_noisy", "chunk_chars", "seed", "reviewed_qa_path", "max_facts"),
    description="How much of the facts an answer needs does each context cover? Continuous retrieval scores"))
