"""Notebook 06 as one registered experiment: how it is planned and compared."""

from __future__ import annotations

from ..experiments import Experiment, Series, register
from ..planning.experiment_plan import piece_tokens
from ..planning.plan import planned_embeddings
from ..planning.priced import estimated, fan_out, named, reply_tokens, template_prompt_tokens, text_tokens
from ..qa.generate import GENERATION_TOKENS
from ..qa.planned import planned_generation
from ..runs.declared import declared
from ..scoring.claims import CHECK_STAGE, EXTRACT_STAGE, claims_request
from ..scoring.judge_card import planned_card
from .parameters import Parameters
from .run import EXPERIMENT, inputs, run_rag_validation
from .stages import ANSWER, CORRECT, answering, judges


def plan(notebook: str, given: dict) -> list[dict]:
    """The run's own samples where they are known before it: the single-chunk generation (exact prompts, cached
    pairs read), the multi-chunk questions, the labelled texts' judge prompts; the answer and judge prompts by
    their templates, with answer_k of the corpus's chunks at their mean size (which ones is retrieval's choice, an
    embedding model not run for a plan), each question as written or generated (else at the generation's size),
    each answer at its measured size (else its budget)."""
    p = declared(Parameters, given)
    model, judge = ANSWER.model(p), CORRECT.model(p)
    read = inputs(p)  # what the run reads, read by the run's own code
    multi, chunks = read.multi, read.chunks
    rows, pairs = planned_generation(notebook, EXPERIMENT, model, read.generated_from)
    # what each answer and judge prompt holds besides its template: {field: tokens}
    half_pair = reply_tokens(EXPERIMENT, "qa_generation", model, GENERATION_TOKENS)[0] / 2
    known = [pair or {} for pair in pairs] + multi[["question", "answer"]].to_dict("records")
    tokens = [{name: text_tokens(judge, [q[name]]) if name in q else half_pair for name in ("question", "answer")}
              for q in known]
    # the passages slot as the answer stage declares it: answer_k chunks of the corpus's mean size (a question
    # not written yet is priced at its stand-in size, so the generic rule's template fields cannot be its own)
    stage = answering(p.answer_k, [c.text for c in chunks])
    passages = p.answer_k * piece_tokens(model, stage.retrieved, [c.text for c in chunks])
    (answer_request,) = ANSWER.requests(p)
    answer, source = reply_tokens(EXPERIMENT, ANSWER.name, model, answer_request.max_tokens)
    rows.append(estimated(notebook, ANSWER.name, model, [template_prompt_tokens(
        model, stage.template, {stage.retrieved.slot: passages, "question": t["question"]}) for t in tokens],
        answer, source))
    for kind, stage in judges():
        slots = [{slot: {"question": t["question"], "reference": t["answer"], "response": answer,
                         "passages": passages}[name] for slot, name in kind.asks} for t in tokens]
        requests = stage.requests(p)
        verdict, said = reply_tokens(EXPERIMENT, stage.name, judge, requests[0].max_tokens)
        rows.append(estimated(notebook, stage.name, judge,
                              [template_prompt_tokens(judge, stage.template, s) for s in slots] * len(requests),
                              verdict, said, request=requests[0]))
    if p.claim_metrics:
        rows += planned_claims(notebook, judge, tokens, answer, passages / p.answer_k, p.answer_k)
    kinds = tuple(kind.kind for kind, _ in judges()) + (("claim_support",) if p.claim_metrics else ())
    rows += [planned_card(notebook, EXPERIMENT, judge, kind, p.card_texts) for kind in kinds]
    # the corpus indexed, every question searched with
    rows.insert(0, planned_embeddings(notebook, p.embedder, [c.text for c in chunks] + list(multi["question"]),
                                      unknown=p.n_single))
    return rows


def planned_claims(notebook: str, judge: str, tokens: list[dict], answer: float, chunk: float, k: int) -> list[dict]:
    """The claim diagnostics by their templates: two extraction calls per question (the answer, the reference), then
    one check per claim of either text against the other text and each of the k chunks the answer read, at the
    claims a text earlier runs extracted (else the declared prior: how many there are is the extraction's to say)."""
    extract = claims_request("x" * int(4 * answer))  # an answer of the measured size, as the run asks for it
    said = reply_tokens(EXPERIMENT, EXTRACT_STAGE, judge, extract.max_tokens)
    extraction = [template_prompt_tokens(judge, "claim_extraction", {"question": t["question"], "sentences": text},
                                         n="2") for t in tokens for text in (answer, t["answer"])]
    per_text, source = fan_out(EXPERIMENT, "claims per text", CHECK_STAGE, EXTRACT_STAGE, judge, 1 + k)
    claim = said[0] / max(per_text, 1.0)
    checks = [template_prompt_tokens(judge, "claim_check", {"question": t["question"], "premise": premise,
                                                           "claim": claim})
              for t in tokens for premise in (answer, t["answer"], *[chunk] * (2 * k))]
    checks = [checks[i % len(checks)] for i in range(round(len(checks) * per_text))]  # per_text checks a premise
    return [estimated(notebook, EXTRACT_STAGE, judge, extraction, *said, request=extract),
            named(estimated(notebook, CHECK_STAGE, judge, checks, 1, "one token"),
                  f"{CHECK_STAGE}, {per_text:.1f} {source}")]


EXPERIMENT_SPEC = register(Experiment(
    name=EXPERIMENT, run=run_rag_validation, notebook="06_rag_validation", plan=plan, parameters=Parameters,
    judged_rate="answer equals reference (06)",
    comparable=("judge_model", "corpus", "store", "embedder", "chunk_tokens", "n_single", "multi_qa_path",
                "n_multi", "n_documents", "max_k", "answer_k", "seed"),
    series=Series(key=("qa_id",), value="judge_correct", split=("set",), x="set", x_label="question set",
                  value_label="judge accuracy",
                  cluster="qa_id", unit="questions", labels=("answer_correct", ("question", "reference", "response"))),
    description="Retrieval recall and precision at k, and answers judged for relevance, faithfulness, correctness"))
