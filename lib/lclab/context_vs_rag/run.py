"""Long context vs RAG (seed 000 §3b): the same document set, stuffed into the prompt or retrieved from.

Each document set (see `sets.py`) is
- shuffled (seeded) into one long context and answered (method `long_context`);
- chunked, indexed in its own vector-store collection, and the top-k chunks for
  the question answered with the same prompt (method `rag`).
Both are judged with the seed's judge and the judge-free string check; prompt
tokens and the answering call's latency give the cost side.

Beyond the seed (frontier.py): RAG at more k on the fullest sets (`frontier_k`), Self-Route (`self_route`: RAG
first, the long context when the model says the chunks do not answer), and unanswerable sets
(`unanswerable_share`: the answer passage cut out; abstention scored by the refusal rule, no judge).
"""

from __future__ import annotations

import pandas as pd

from ..models import budget_counters, check_budget, complete, tokenizer_name
from ..qa import load_validated
from ..qa.closed_book import closed_book_arm
from ..retrieval.chunking import Chunker
from ..runs.folders import fingerprint
from ..runs.runner import Result, Run, Step, answer_columns, headline, skipped_note
from ..runs.samples import Sample
from ..scoring.judges import JUDGE, correctness_card, correctness_columns, judge_correct
from ..scoring.reliability import card_notes, cards
from ..stats import proportion_summary
from ..stats.effective_length import accuracy_by_length, effective_length_ci, length_note
from ..stats.paired import effect_row, paired, power_note, wide
from ..scoring.refusal import refusal_cue
from ..stats.abstention import abstention_table
from ..text.context import IF_ABSENT, answer_prompt
from .frontier import frontier_table, self_route_table
from .sets import DocumentSet, build_sets, retrieve

EXPERIMENT = "context_vs_rag"
KEY = ("qa_id", "noise_pct", "method", "fingerprint")
METHODS = ("long_context", "rag")


def methods_of(doc_set: DocumentSet, top_noise: int, top_k: int, frontier_k: list[int], self_route: bool
               ) -> list[tuple[str, int | None]]:
    """(method, chunks retrieved) of one set: both methods everywhere; on the answerable sets of the highest
    noise level (the fullest), RAG at every other k of the frontier and Self-Route."""
    out = [("long_context", None), ("rag", top_k)]
    if doc_set.answerable and doc_set.noise_pct == top_noise:
        out += [(f"rag@{k}", k) for k in sorted(set(frontier_k) - {top_k})]
        out += [("self_route", top_k)] if self_route else []
    return out


def prepare(sets: list[DocumentSet], top_k: int = 3, frontier_k: list[int] = (), self_route: bool = False,
            if_absent: str = "") -> list[Sample]:
    """Every document set once per method, as a Sample: long context's input is its exact answer prompt; RAG's
    and Self-Route's is the query their retrieval embeds (the answer prompt is built from the chunks that step
    writes down)."""
    top = max((s.noise_pct for s in sets), default=0)
    return [Sample(id=f"{s.qa_id}:{s.noise_pct}:{method}",
                   input=answer_prompt(s.docs, s.question, if_absent) if method == "long_context" else s.question,
                   target=s.gold, source=s,
                   metadata={"method": method, "noise_pct": s.noise_pct, "cluster": s.qa_id, "k": k,
                             "answerable": s.answerable})
            for s in sets for method, k in methods_of(s, top, top_k, frontier_k, self_route)]


def retrieval_columns(doc_set: DocumentSet, got: dict) -> dict:
    """What a RAG trial's retrieval step writes down: the chunk ids in rank order (its answer step reads them),
    whether the answer passage was among them, and the index and search times."""
    ids = [h.chunk_id for h in got["hits"]]
    found = any(i.startswith(doc_set.answer_id + "::") for i in ids) if doc_set.answerable else None
    return {"retrieved": ids, "answer_doc_retrieved": found,
            "index_s": round(got["index_s"], 3), "search_s": round(got["search_s"], 4)}


def run_context_vs_rag(model: str, judge_model: str, corpus: str, qa_path: str, n_qa: int, context_tokens: int,
                       noise_levels: list[int], store: str, embedder: str, chunk_tokens: int, top_k: int, seed: int,
                       max_workers: int, run_name: str, max_answer_tokens: int, self_consistency: int = 0,
                       closed_book: bool = False, frontier_k: list[int] = (), self_route: bool = False,
                       unanswerable_share: float = 0.0) -> Result:
    """Run (or resume) both methods on every document set: one row per (pair, noise level, method); with
    `closed_book`, every QA pair asked with no context as well (lclab.qa.closed_book); `frontier_k`,
    `self_route` and `unanswerable_share` add their arms (module docstring)."""
    with Run(EXPERIMENT, run_name, parameters=locals()) as run:
        check_budget(model, context_tokens, max_answer_tokens)  # refused before any work
        loaded, pool, qa = load_validated(corpus, qa_path, n_qa)
        count, count_text = budget_counters(model)
        sets = build_sets(qa, pool, context_tokens, noise_levels, seed, count, count_text, unanswerable_share)
        chunker = Chunker(chunk_tokens, "tokens")
        # Every answer prompt says what to reply when the documents do not answer once some sets cannot be
        # answered (the prompt must not tell the two apart); otherwise the seed's prompt, unchanged.
        if_absent = IF_ABSENT if unanswerable_share else ""
        settings = (model, judge_model, max_answer_tokens, JUDGE, self_consistency) + (
            (if_absent,) if if_absent else ())

        def key(sample: Sample) -> tuple:
            s, k = sample.source, sample["k"]
            made_with = [settings, [d.id for d in s.docs], s.question] + ([(store, embedder, chunker.name, k)]
                                                                          if k is not None else [])
            return (s.qa_id, s.noise_pct, sample["method"], fingerprint(*made_with))

        def retrieval(sample: Sample, row: dict) -> dict:
            return {} if sample["k"] is None else retrieval_columns(
                sample.source, retrieve(sample.source, store, embedder, chunker, sample["k"], run.dir / "chroma"))

        def answer(sample: Sample, row: dict) -> dict:
            doc_set, method = sample.source, sample["method"]
            if method == "long_context":
                return with_abstention(complete(model, sample.input, stage="answer", max_tokens=max_answer_tokens))
            chunks = {c.chunk_id: c for c in chunker.split(doc_set.docs)}
            read = [chunks[i] for i in row["retrieved"]]  # the chunks the retrieval step wrote down, in its order
            if method != "self_route":
                return with_abstention(complete(model, answer_prompt(read, doc_set.question, if_absent),
                                                stage="answer", max_tokens=max_answer_tokens))
            # Self-Route: the chunks first, with leave to say they do not answer; then, if the model says so, the
            # long context's own prompt (the long_context arm's call: a cache hit, not a second call).
            first = complete(model, answer_prompt(read, doc_set.question, IF_ABSENT), stage="answer",
                             max_tokens=max_answer_tokens)
            routed = first.text is not None and bool(refusal_cue(first.text))
            final = complete(model, answer_prompt(doc_set.docs, doc_set.question, if_absent), stage="answer",
                             max_tokens=max_answer_tokens) if routed else first
            return {**with_abstention(final), "routed": routed, "route_reply": first.text,
                    "prompt_tokens": (first.prompt_tokens or 0) + (final.prompt_tokens or 0 if routed else 0)}

        def with_abstention(reply) -> dict:
            out = answer_columns(reply)
            if if_absent and reply.text is not None:
                out["abstained"] = refusal_cue(reply.text)
            return out

        def judge(sample: Sample, row: dict) -> dict:
            doc_set = sample.source
            if not doc_set.answerable:  # the refusal rule decides (answer step); there is no gold to judge against
                return {}
            verdict = judge_correct(judge_model, doc_set.question, row["response"], doc_set.gold, self_consistency)
            return correctness_columns(verdict, row["response"], doc_set.gold)

        # Retrieval first (cheap, and it needs the embedder, not the LLM), then every answer, then the judge.
        every = run.trials(
            prepare(sets, top_k, frontier_k, self_route, if_absent), log=run.log(KEY), key=key,
            describe=lambda t: {"n_distractors": t.source.n_distractors, "question": t.source.question,
                                "gold": t.target, "model": model, "judge_model": judge_model, "k": t["k"],
                                "answerable": t.source.answerable},
            steps=[Step("retrieve", retrieval), Step("answer", answer, max_workers), Step("judge", judge, max_workers)])
        answerable = every["answerable"].astype(bool) if "answerable" in every else pd.Series(True, every.index)
        arms = every[answerable]
        # The seed's tables read its two methods on the answerable sets; the other arms have tables of their own.
        items = arms[arms["method"].isin(METHODS)] if "method" in arms else arms
        notes = [f"{len(qa)} QA pairs x noise levels -> {len(sets)} document sets "
                 f"({int((~pd.Series([s.answerable for s in sets])).sum())} unanswerable), "
                 f"{len(every)} trials; " + run.resume_note(),
                 f"context budget {context_tokens} tokens ({tokenizer_name(model)}); {len(pool)} passages in the corpus"]
        notes += skipped_note(loaded.skipped)
        reliability = cards([correctness_card(items, judge_model, "answer correct (02)")])
        effects, line = method_effects(items)
        lengths, length_line = long_context_length(items)
        arm, arm_notes = closed_book_arm(run, closed_book, items, model, judge_model, qa, max_answer_tokens,
                                         self_consistency, max_workers, by=("noise_pct", "method"))
        notes += card_notes(reliability) + [line, length_line] + arm_notes
        more = {}
        if frontier_k or self_route:
            more["frontier"] = frontier_table(arms)
        if self_route:
            more["self_route"], route_line = self_route_table(arms)
            notes.append(route_line)
        if unanswerable_share:
            asked = every[(every["noise_pct"] > 0) & every["method"].isin(METHODS)]
            if "abstained" not in asked:  # every call failed: the table says there is nothing to read
                asked = asked.assign(abstained=float("nan"))
            more["abstention"] = abstention_table(asked, ["noise_pct", "method"], "judge_correct", "abstained",
                                                  "qa_id")
            notes.append("unanswerable sets: the answer passage cut out of the context and the index; abstention "
                         "(the refusal rule) beside the answer rate on answerable sets in `abstention`")
        top = effects.iloc[-1] if len(effects) else {}
        return run.result(summarize(items), items=every, notes=notes,
                          tables={"retrieval_misses": retrieval_misses(items), "reliability": reliability,
                                  "effects": effects, "effective_length": lengths, **arm, **more},
                          headline=headline(f"long context − RAG at {top.get('noise_pct', '?')} % noise",
                                            top.get("effect"), top.get("effect_lo"), top.get("effect_hi")))


def summarize(items: pd.DataFrame) -> pd.DataFrame:
    """Per (noise level, method): accuracies with 95 % CIs, documents, prompt tokens and answer time."""
    by = ["noise_pct", "method"]
    judge = proportion_summary(items, by, "judge_correct", "judge")
    match = proportion_summary(items, by, "string_match", "match").drop(columns="match_missing")
    cost = items.reindex(columns=by + ["n_distractors", "prompt_tokens", "answer_latency_s"]).groupby(by).agg(
        n_distractors=("n_distractors", "mean"),
        prompt_tokens=("prompt_tokens", "mean"),
        answer_s=("answer_latency_s", "mean"),
    ).reset_index()
    out = judge.merge(match, on=by).merge(cost, on=by)
    if "answer_doc_retrieved" in items:
        hit = items[items["method"] == "rag"].groupby("noise_pct")["answer_doc_retrieved"].mean()
        out["answer_doc_retrieved"] = [hit.get(n) if m == "rag" else None
                                       for n, m in zip(out["noise_pct"], out["method"])]
    return out


def method_effects(items: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Long context minus RAG per noise level, paired by QA pair (paired t), and the power line from
    the per-pair differences of every level."""
    rows, differences = [], []
    for level, part in items.groupby("noise_pct") if "judge_correct" in items else []:
        rows.append({"noise_pct": level, **effect_row("long context − RAG", paired(
            part, "qa_id", "method", "judge_correct", "long_context", "rag"), True)})
        table = wide(part, "qa_id", "method", "judge_correct")
        if {"long_context", "rag"} <= set(table):
            differences += (table["long_context"] - table["rag"]).dropna().tolist()
    sd = pd.Series(differences).std() if len(differences) > 1 else float("nan")
    return pd.DataFrame(rows), power_note(sd, items["qa_id"].nunique() if len(items) else 0)


def long_context_length(items: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The long-context arm as a length sweep: each noise level's set is as long as its mean prompt; the
    effective length (>= 85 % of the shortest set's accuracy) with a bootstrap CI over QA pairs."""
    long = items[items["method"] == "long_context"] if "method" in items else items.iloc[:0]
    if "prompt_tokens" not in long or long["prompt_tokens"].isna().all():
        return pd.DataFrame(), length_note(effective_length_ci(long), [])
    size = long.groupby("noise_pct")["prompt_tokens"].mean().round().astype(int)
    as_lengths = long.assign(context_tokens=long["noise_pct"].map(size))
    result = effective_length_ci(as_lengths)
    table = accuracy_by_length(as_lengths).merge(size.rename("context_tokens").reset_index(), on="context_tokens")
    return table.assign(**{f"effective_{k}": v for k, v in result.items()}), length_note(result, list(size))


def retrieval_misses(items: pd.DataFrame) -> pd.DataFrame:
    """RAG answers whose retrieved chunks missed the answer passage (a retrieval failure, not a reading one)."""
    columns = ["qa_id", "noise_pct", "question", "retrieved", "response"]
    if "answer_doc_retrieved" not in items:
        return pd.DataFrame(columns=columns)
    rag = items[(items["method"] == "rag") & items["answer_doc_retrieved"].notna()]
    return rag.loc[~rag["answer_doc_retrieved"].astype(bool)].reindex(columns=columns)  # no response if it failed
