"""The continuous retrieval-accuracy dataset (seed 002): how much of a golden response does a set of contexts cover?

1. Golden contexts: four consecutive 2000-character chunks of one essay (G1-G4).
   Noisy contexts: three chunks drawn, seeded, from other essays (N1-N3).
2. A question whose golden response draws on all four golden chunks: generated
   by the LLM (one cached call), replaced by the reviewed version when the
   reviewed file was made for exactly these chunks.
3. The golden response's unique facts, extracted twice: an IO prompt and a
   chain-of-thought prompt.
4. Every fact against every context with the logprob-weighted scorer
   ("is this fact fully discussed in the context?"): facts x 7 calls.
5. Every combination of 2..7 contexts (120), scored as `combine.py` says.
"""

from __future__ import annotations

import json
from dataclasses import asdict

from ..retrieval.chunking import Chunker
from ..runs.runner import Result, Run, headline, skipped_note
from ..text.corpus import load_corpus
from .combine import combinations_table, per_context_table
from .contexts import contexts_table, generate_golden, load_reviewed, pick_contexts
from .facts import STYLES, extract_facts, score_facts
from .parameters import Parameters

EXPERIMENT = "pg_continuous"


def run_continuous(p: Parameters) -> Result:
    with Run(EXPERIMENT, p.run_name, parameters=asdict(p)) as run:
        loaded = load_corpus(p.corpus)
        chunks = Chunker(p.chunk_chars, "chars").split(loaded.documents)
        contexts = pick_contexts(chunks, p.essay, p.start, 4, p.n_noisy, p.seed)
        golden = [c for c in contexts if c.golden]

        generated = generate_golden(p.model, golden)
        reviewed = load_reviewed(p.reviewed_qa_path, golden) if p.reviewed_qa_path else None
        qa = {"question": (reviewed or generated)["question"], "answer": (reviewed or generated)["answer"],
              "source": "reviewed" if reviewed else "generated, not reviewed", "generated": generated}

        extractions = {style: extract_facts(p.model, qa["answer"], style) for style in STYLES}
        # max_facts > 0 keeps the first facts only: a quick run, not a result (the notes say so).
        facts = {style: e["facts"][:p.max_facts or None] for style, e in extractions.items()}
        scores = score_facts(run, p, facts, contexts)
        combos = combinations_table(scores, [c.context_id for c in contexts])
        (run.dir / "golden_qa.json").write_text(json.dumps({**qa, "facts": facts}, indent=2, ensure_ascii=False))
        notes = describe(contexts, qa, extractions, facts, scores, combos, p.max_facts) + [run.resume_note(
            "fact_scores.jsonl")] + skipped_note(loaded.skipped)
        top = combos[combos["n_golden"] == combos["n_golden"].max()]
        return run.result(
            headline=headline("soft-OR coverage, all golden contexts (IO facts)",
                              top["io_soft"].mean() if "io_soft" in top else None),
            summary=combos.groupby("n_golden")[[c for c in ("io_binary", "io_soft", "cot_binary", "cot_soft")
                                        if c in combos]].mean().reset_index(),
            items=scores, notes=notes,
            tables={"contexts": contexts_table(contexts), "combinations": combos, "fact_scores": scores,
                    "per_context": per_context_table(scores),
                    "fact_grid": scores.pivot_table(index="fact_id", columns="context_id", values="p", sort=False)},
            data={"qa": qa, "extractions": extractions, "facts": facts, "contexts": contexts})


def describe(contexts, qa, extractions, facts, scores, combos, max_facts) -> list[str]:
    extracted = {style: len(e["facts"]) for style, e in extractions.items()}
    listed = {style: e["listed"] for style, e in extractions.items()}
    n_facts = {style: len(f) for style, f in facts.items()}
    lines = [
        "contexts: " + ", ".join(f"{c.context_id}={c.chunk.chunk_id}" for c in contexts),
        f"question and golden response: {qa['source']}",
        "facts: " + ", ".join(f"{s.upper()} {n} unique of {listed[s]} listed" for s, n in extracted.items()),
        f"fact x context scores: {len(scores)} (= {sum(n_facts.values())} facts x {len(contexts)} contexts)",
        f"combinations: {len(combos)}",
    ]
    if max_facts and any(n < extracted[s] for s, n in n_facts.items()):
        lines.append(f"max_facts={max_facts}: only the first facts are scored, so the scores below are a "
                     "quick check, not a result")
    failed = scores[scores["p"].isna()]
    if len(failed):
        lines.append(f"{len(failed)} fact scores could not be read (result.failures); combinations leave those "
                     "facts out where they decide the result, and count them")
    fallback = int((scores["p_source"] == "sampled").sum())
    if fallback:
        lines.append(f"{fallback} fact scores fell back to the sampled token (no logprobs from this backend)")
    return lines
