"""Claim-level diagnostics of a RAG answer, after RAGChecker (Ru et al. 2024, amazon-science/RAGChecker).

An item carries a question, the model's response, the reference (ground-truth) answer and the chunks the
generator read. Both texts are cut into claims (the lab's sentence split, `lclab.text.sentences`, then one
extraction call: the `claim_extraction` prompt, cached like every call, its budget sized by the text), and every
claim is checked with the one-token verdict of `entailment.py` on the `claim_check` prompt, whose premise is the
question and the text, as RAGChecker's checker reads the question too (p(supported), entailed when >= 0.5, or at
the checking judge's card cut where a run has its card: `read_at`):

    response claims  against the reference        -> precision            (RAGChecker's answer2response)
    reference claims against the response         -> recall               (response2answer)
    reference claims against each chunk           -> claim recall, context precision   (retrieved2answer)
    response claims  against each chunk           -> faithfulness, hallucination, ...  (retrieved2response)

`item_metrics` turns the four verdict sets into RAGChecker's eleven metrics with RAGChecker's formulas. Where
the lab departs from them (docs/retrieval.md, "Claim-level diagnostics"): a metric with nothing to average
(a response with no claim, no chunk, no recalled claim) is undefined (NaN, left out of the mean) where
RAGChecker scores 0; a check the model could not answer leaves the item's metrics undefined and names the
item, never a 0; the verdict is two-way (supported or not) where RAGChecker's checker says entailment,
neutral or contradiction (its metrics read only "entailment", so the two agree on what counts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..models import ParseError, Request, complete
from ..prompts import render
from ..stats.clusters import cluster_mean_ci
from ..text.sentences import to_sentences
from .entailment import p_claim_supported
from .score import Score, unscored

CLAIMS_TOKENS = 160  # the smallest extraction budget: the claims of a one- or two-sentence answer
# The claims restate the text, each readable alone (a pronoun written out), in JSON: about twice the text's tokens.
# A 160-token budget cut a four-sentence answer's JSON in half; a text of c characters is about c / 4 tokens.
CLAIMS_PER_CHAR = 0.6
CLAIMS_CEILING = 2048
CLAIMS_SCHEMA = {"type": "object", "properties": {"claims": {"type": "array", "items": {"type": "string"}}},
                 "required": ["claims"]}
# The gateway stages of the claims' extraction and of their one-token checks (the run's and the plan's rows).
EXTRACT_STAGE, CHECK_STAGE = "claims", "claim check"
ENTAILED_AT = 0.5  # p(supported) at or above this is an entailment

# RAGChecker's groups, in its order
METRICS = {"overall": ("precision", "recall", "f1"),
           "retriever": ("claim_recall", "context_precision"),
           "generator": ("context_utilization", "noise_sensitivity_in_relevant", "noise_sensitivity_in_irrelevant",
                         "hallucination", "self_knowledge", "faithfulness")}


def extraction_prompt(question: str, text: str) -> str | None:
    """The exact prompt that cuts `text` into claims (None for a text with no sentence: it has no claim)."""
    sentences = to_sentences(text)
    if not sentences:
        return None
    numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(sentences, 1))
    return render("claim_extraction", question=question, n=len(sentences), sentences=numbered)


def claims_budget(text: str) -> int:
    """The extraction's completion budget for `text`: room for its claims restated in JSON, never below
    CLAIMS_TOKENS nor above CLAIMS_CEILING."""
    return int(min(CLAIMS_CEILING, max(CLAIMS_TOKENS, 64 + CLAIMS_PER_CHAR * len(text))))


def claims_request(text: str, cache_tag: str | None = None) -> Request:
    """The extraction's request for `text` (the run's, and the plan's for its price)."""
    return Request(max_tokens=claims_budget(text), response_format=CLAIMS_SCHEMA, cache_tag=cache_tag)


def extract_claims(model: str, question: str, text: str, cache_tag: str | None = None) -> list[str]:
    """The claims of one text; [] for an empty text. A reply that stays unreadable raises ParseError (the item
    fails with it; it never counts as "no claims")."""
    prompt = extraction_prompt(question, text)
    if prompt is None:
        return []
    reply = complete(model, prompt, stage=EXTRACT_STAGE, request=claims_request(text, cache_tag))
    return [c.strip() for c in reply.json["claims"] if isinstance(c, str) and c.strip()]


@dataclass
class ClaimChecks:
    """p(supported) of every check of one item (None where the model gave no readable verdict)."""
    response_vs_reference: list  # per response claim
    reference_vs_response: list  # per reference claim
    reference_vs_chunks: list    # [reference claim][chunk]
    response_vs_chunks: list     # [response claim][chunk]

    def unread(self) -> int:
        flat = [*self.response_vs_reference, *self.reference_vs_response,
                *(p for row in self.reference_vs_chunks for p in row),
                *(p for row in self.response_vs_chunks for p in row)]
        return sum(p is None for p in flat)


def check_claims(model: str, question: str, response_claims: list[str], reference_claims: list[str], response: str,
                 reference: str, chunks: list[str], cache_tag: str | None = None) -> ClaimChecks:
    """Every check of one item, each read with the question, grouped by premise so that calls sharing a premise
    follow each other (the prompt puts the question and the premise first: llama.cpp's KV cache reuses them)."""
    def p(premise: str, claim: str):
        return p_claim_supported(model, question, premise, claim, stage=CHECK_STAGE, cache_tag=cache_tag).score

    # One chunk at a time, both texts' claims against it: each premise is read once into the KV cache.
    by_chunk = [([p(chunk, c) for c in reference_claims], [p(chunk, c) for c in response_claims]) for chunk in chunks]
    return ClaimChecks(
        response_vs_reference=[p(reference, c) for c in response_claims],
        reference_vs_response=[p(response, c) for c in reference_claims],
        reference_vs_chunks=[[ref[i] for ref, _ in by_chunk] for i in range(len(reference_claims))],
        response_vs_chunks=[[resp[i] for _, resp in by_chunk] for i in range(len(response_claims))])


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else math.nan


def item_metrics(checks: ClaimChecks, entailed_at: float = ENTAILED_AT) -> dict[str, float]:
    """RAGChecker's eleven metrics of one item from its checks (NaN where undefined; all NaN when a check is
    unread)."""
    if checks.unread():
        return {m: math.nan for group in METRICS.values() for m in group}
    a2r = np.array(checks.response_vs_reference, dtype=float) >= entailed_at  # response claim is correct
    r2a = np.array(checks.reference_vs_response, dtype=float) >= entailed_at  # reference claim is in the response
    n_resp, n_ref = len(a2r), len(r2a)
    n_chunks = len(checks.response_vs_chunks[0]) if n_resp else (
        len(checks.reference_vs_chunks[0]) if n_ref else 0)
    ret2ans = np.array(checks.reference_vs_chunks, dtype=float).reshape(n_ref, n_chunks) >= entailed_at
    ret2resp = np.array(checks.response_vs_chunks, dtype=float).reshape(n_resp, n_chunks) >= entailed_at

    precision, recall = _mean(a2r), _mean(r2a)
    f1 = (math.nan if math.isnan(precision) or math.isnan(recall) else
          0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall))
    out = {"precision": precision, "recall": recall, "f1": f1,
           "claim_recall": math.nan, "context_precision": math.nan, "context_utilization": math.nan,
           "noise_sensitivity_in_relevant": math.nan, "noise_sensitivity_in_irrelevant": math.nan,
           "hallucination": math.nan, "self_knowledge": math.nan, "faithfulness": math.nan}
    if n_chunks and n_ref:
        recalled = ret2ans.any(axis=1)  # a reference claim some chunk entails
        out["claim_recall"] = _mean(recalled)
        out["context_precision"] = _mean(ret2ans.any(axis=0))  # a chunk that entails some reference claim
        out["context_utilization"] = (float((recalled & r2a).sum() / recalled.sum()) if recalled.any()
                                      else math.nan)
    if n_chunks and n_resp:
        faithful = ret2resp.any(axis=1)
        out["faithfulness"] = _mean(faithful)
        out["hallucination"] = _mean(~faithful & ~a2r)
        out["self_knowledge"] = _mean(~faithful & a2r)
        if n_ref:
            relevant = ret2ans.any(axis=0)  # chunks holding a reference claim
            in_relevant = (ret2resp & relevant).any(axis=1)
            in_irrelevant = (ret2resp & ~relevant).any(axis=1) & ~in_relevant
            out["noise_sensitivity_in_relevant"] = _mean(in_relevant & ~a2r)
            out["noise_sensitivity_in_irrelevant"] = _mean(in_irrelevant & ~a2r)
    return out


def read_at(items: pd.DataFrame, entailed_at: float) -> pd.DataFrame:
    """`items` with each item's eleven metrics recomputed from its stored checks (`claims_checks`) with a check
    entailed at `entailed_at`, the checking judge's card cut, so the metrics read the verdicts its card measured;
    the metrics at 0.5 kept beside them as `claims_<metric>_at_0.5`. Items without checks are left as they are."""
    if "claims_checks" not in items or entailed_at == ENTAILED_AT:
        return items
    names = [m for group in METRICS.values() for m in group if f"claims_{m}" in items]
    reread = [item_metrics(ClaimChecks(**checks), entailed_at) if isinstance(checks, dict) else {}
              for checks in items["claims_checks"]]
    return items.assign(**{f"claims_{m}_at_0.5": items[f"claims_{m}"] for m in names},
                        **{f"claims_{m}": [metrics.get(m, was) for metrics, was in zip(reread, items[f"claims_{m}"])]
                           for m in names})


def claim_metrics_table(items: pd.DataFrame, cluster: str, unit: str, reading=None) -> pd.DataFrame:
    """Each metric's mean over the items where it is defined, with a cluster t interval (`cluster` names the
    column of the independent unit; `unit` what it is called). Items whose claims failed are not in it. With the
    checking judge's `reading` (its card on the shipped NLI hypotheses), a judge that cannot tell supported from
    unsupported claims gives no numbers: every row says "judge uninformative on claim_support"."""
    if reading is not None and not reading.informative:
        return pd.DataFrame([{"group": group, "metric": name, "mean": math.nan, "lo": math.nan, "hi": math.nan,
                              "n": 0, "unit": unit, "undefined": len(items), "judge": reading.judge.label,
                              "read_as": reading.uninformative_note}
                             for group, names in METRICS.items() for name in names])
    rows = []
    for group, names in METRICS.items():
        for name in names:
            column = f"claims_{name}"
            values = items[column] if column in items else pd.Series(dtype=float)
            defined = values.notna()
            ci = (cluster_mean_ci(values[defined], items.loc[defined, cluster]) if defined.any()
                  else {"mean": math.nan, "lo": math.nan, "hi": math.nan, "n_items": 0, "n_clusters": 0})
            rows.append({"group": group, "metric": name, "mean": ci["mean"], "lo": ci["lo"], "hi": ci["hi"],
                         "n": ci["n_clusters"], "unit": unit,
                         "undefined": int((~defined).sum())} | ({"judge": reading.judge.label,
                                                                 "read_as": "judge informative on claim_support",
                                                                 "entailed_at": reading.threshold}
                                                                if reading is not None else {}))
    return pd.DataFrame(rows)


def claim_score(model: str, question: str, response: str, reference: str, chunks: list[str],
                cache_tag: str | None = None) -> Score:
    """One item's claim diagnostics as a Score: value = the eleven metrics by name, metadata = the claims of the
    response and of the reference and every check's probability; unscored when the claims could not be
    extracted, or when some check had no readable verdict (the metrics of the rest are kept beside the reason).

    Written as `claim_score(...).columns("claims", spread=True)`: claims_<metric> for each metric, claims_of_response,
    claims_of_reference, claims_checks, claims_error."""
    try:
        response_claims = extract_claims(model, question, response, cache_tag)
        reference_claims = extract_claims(model, question, reference, cache_tag)
    except ParseError as err:
        return unscored(f"claim extraction: {err}")
    checks = check_claims(model, question, response_claims, reference_claims, response, reference, chunks, cache_tag)
    unread = checks.unread()
    return Score(item_metrics(checks), answer=response,
                 metadata={"of_response": response_claims, "of_reference": reference_claims, "checks": checks.__dict__},
                 unscored=f"{unread} claim checks had no readable verdict" if unread else None)


__all__ = ["CHECK_STAGE", "CLAIMS_TOKENS", "ClaimChecks", "METRICS", "check_claims", "claims_budget",
           "claims_request", "claim_score", "claim_metrics_table", "extract_claims", "extraction_prompt",
           "item_metrics", "read_at"]
