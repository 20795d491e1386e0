"""The planner of each notebook: its calls and tokens, from its parameters, without a model call (see plan.py).

Where a planner can build the exact prompts (01, 07, 00) it does, and looks them
up in the cache; elsewhere it counts calls exactly and estimates tokens from the
sizes involved (chunk sizes, passages, budgets), and says so in the stage name.
"""

from __future__ import annotations

from .plan import JUDGE_PROMPT, answers_and_judges, row


def _one_at_a_time_local(model: str, p: dict) -> bool:
    """Whether consecutive prompts reach the embedded model one by one, so a shared prefix is reused."""
    return model.startswith("local/") and p.get("max_workers", 1) == 1


def depth_sweep(notebook: str, p: dict) -> list[dict]:
    from .depth_sweep import build_trials
    from .models import budget_counters
    from .qa import load_validated

    model, judge = p["model"], p["judge_model"] or p["model"]
    _, pool, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    count, text = budget_counters(model)
    # Similar distractors would need the embedder (a model) to choose: their prompts are planned as random ones.
    trials = build_trials(qa, pool, p["context_tokens"], p["depths"], p["seed"], count, text,
                          p.get("haystack", "per_pair")) * len(p.get("distractors", ["random"]))
    rows = answers_and_judges(notebook, model, judge, [t.prompt for t in trials], p["max_answer_tokens"],
                              1 + p.get("self_consistency", 0), reuse_prefix=_one_at_a_time_local(model, p))
    for k in (k for k in p.get("needles", [1]) if k > 1):
        groups = len(qa) // k
        calls = groups * len(p["context_tokens"])
        rows.append(row(notebook, f"answer, {k} needles (estimated)", model, calls, 0,
                        sum(p["context_tokens"]) * groups, calls * p["max_answer_tokens"] * k,
                        [(n, 0) for n in p["context_tokens"]] * groups))
    return rows


def context_vs_rag(notebook: str, p: dict) -> list[dict]:
    from .context_vs_rag import build_sets
    from .context import answer_prompt
    from .models import budget_counters
    from .qa import load_validated

    model, judge = p["model"], p["judge_model"] or p["model"]
    _, pool, qa = load_validated(p["corpus"], p["qa_path"], p["n_qa"])
    count, text = budget_counters(model)
    sets = build_sets(qa, pool, p["context_tokens"], p["noise_levels"], p["seed"], count, text)
    rows = answers_and_judges(notebook, model, judge, [answer_prompt(s.docs, s.question) for s in sets],
                              p["max_answer_tokens"], 1 + p.get("self_consistency", 0))  # RAG prompts come between
    rows[0]["stage"], rows[1]["stage"] = "answer, long context", "judge, long context"
    rag_prompt = p["top_k"] * p["chunk_tokens"] + 60  # top-k chunks and the question: retrieval is not run here
    rows += [row(notebook, "answer, RAG (estimated)", model, len(sets), 0, len(sets) * rag_prompt,
                 len(sets) * p["max_answer_tokens"]),
             row(notebook, "judge, RAG (estimated)", judge, len(sets), 0,
                 len(sets) * (JUDGE_PROMPT + 20 + p["max_answer_tokens"]), len(sets) * 8)]
    return rows


def qa_generation(notebook: str, p: dict) -> list[dict]:
    from .corpus import load_corpus, passages
    from .models import cached
    from .prompts import render
    from .qa import sample_passages

    pool = passages(load_corpus(p["corpus"]), p["passage_chars"])
    chosen = sample_passages(pool, p["n_passages"], p["min_passage_chars"], p["seed"])
    template = "qa_generation_low_overlap" if p.get("low_overlap") else "qa_generation"
    prompts = [render(template, context=c.text) for c in chosen]
    hits = sum(cached(p["model"], q, response_format="json", max_tokens=128) is not None for q in prompts)
    tokens = sum(len(c.text) for c in chosen) / 4  # ~4 characters a token in English prose
    return [row(notebook, "qa_generation", p["model"], len(prompts), hits, tokens + 60 * len(prompts), 40 * len(prompts)),
            row(notebook, "qa_validation (estimated)", p["model"], len(prompts), hits, tokens + 80 * len(prompts),
                8 * len(prompts))]


def pg_discrete(notebook: str, p: dict) -> list[dict]:
    points = 2 * p["n_questions"]  # a positive and a negative candidate per question
    prompt = (p["n_positive"] + p["n_negative"]) / 2 * p["chunk_chars"] / 4 + 120
    return [row(notebook, "score (estimated tokens)", m, points, 0, points * prompt, points) for m in p["models"]]


def pg_continuous(notebook: str, p: dict) -> list[dict]:
    facts = 2 * (p["max_facts"] or 5)  # IO and COT lists; five facts each when not capped (the default run's)
    contexts = 4 + p["n_noisy"]
    chunk = p["chunk_chars"] / 4
    return [row(notebook, "generate + facts (estimated)", p["model"], 3, 0, 4 * chunk + 600, 900),
            row(notebook, "score (estimated tokens)", p["model"], facts * contexts, 0, facts * contexts * (chunk + 60),
                facts * contexts)]


def nli(notebook: str, p: dict) -> list[dict]:
    from .nli import load_items, prepare

    items = load_items(p["items_path"])
    items = items[:p["n_items"]] if p["n_items"] else items
    prepared = [prepare(it, p["language"]) for it in items]
    hypotheses = sum(2 * len(x.answer_raw) + len(x.gt_raw) for x in prepared)
    premise = sum(len(it.context) for it in items) / 4 / max(1, len(items))
    rows = []
    for model in p["models"] or [p["model"]]:
        for i, variant in enumerate(p["variants"]):
            for level in p["concurrency"]:
                name = f"{variant}, concurrency {level}"
                if p["pronouns"] and i == 0:  # the other variants reuse these replies from the cache
                    rows.append(row(notebook, f"pronouns ({name}, estimated)", model, 2 * len(items), 0,
                                    2 * len(items) * 250, 2 * len(items) * 60))
                one_token = variant == "probability"
                rows.append(row(notebook, f"nli ({name}, estimated)", model, hypotheses, 0, hypotheses * (premise + 250),
                                hypotheses * (1 if one_token else 60)))
                texts = 2 * len(items)
                rows.append(row(notebook, f"refusal ({name}, estimated)", model, texts if one_token else -(-texts // 8),
                                0, texts * 60, texts if one_token else texts * 16))
    return rows


def rag_validation(notebook: str, p: dict) -> list[dict]:
    from .paths import repo_path
    from .tables import read_hand_table

    multi = read_hand_table(repo_path(p["multi_qa_path"]), ("validated",), "multi-chunk QA file")
    n_multi = int((multi["validated"].str.strip().str.lower() == "yes").sum())
    n_multi = min(n_multi, p["n_multi"]) if p["n_multi"] else n_multi
    questions = p["n_single"] + n_multi
    answer_prompt = p["answer_k"] * p["chunk_tokens"] + 80
    judge = p["judge_model"] or p["model"]
    return [row(notebook, "qa_generation (estimated)", p["model"], 2 * p["n_single"], 0, 2 * p["n_single"] * 330,
                p["n_single"] * 48),
            row(notebook, "answer (estimated)", p["model"], questions, 0, questions * answer_prompt,
                questions * p["max_answer_tokens"]),
            row(notebook, "judges (estimated)", judge, 3 * questions, 0,
                questions * (3 * JUDGE_PROMPT + answer_prompt + 2 * p["max_answer_tokens"]), 3 * questions * 8)]


def rag_ifeval(notebook: str, p: dict) -> list[dict]:
    from .models import cached, count_prompt_tokens
    from .rag_ifeval import Options, build_prompt, context_order, load_documents, load_samples, load_template
    from .rag_ifeval.model_config import model_config

    fields = {f: p[f] for f in Options.__dataclass_fields__ if f in p}
    options = Options(**fields).resolved()
    docs = load_documents(options.docs_path)
    samples = load_samples(options.eval_path, docs)[:p["n_samples"] or None]
    template = load_template(options.prompt)
    system = None if options.text_completion else (options.system_message or None)
    rows = []
    for spec in p["models"]:
        config = model_config(spec, options.max_tokens)
        prompts = [build_prompt(template, s, context_order(s, options.shuffle_context, options.shuffle_seed), docs,
                                options.refusal_message) for s in samples]
        hits = [cached(config.spec, q, system=system, max_tokens=config.max_tokens, temperature=config.temperature,
                       text_completion=options.text_completion) for q in prompts]
        tokens = sum(count_prompt_tokens(config.spec, q, system) for q in prompts)
        done = [h for h in hits if h is not None]
        rows.append(row(notebook, "rag_ifeval answer", config.spec, len(prompts), len(done), tokens,
                        sum(h["completion_tokens"] for h in done) + 40 * (len(prompts) - len(done))))
    return rows


PLANNERS = {"00_make_qa_set": qa_generation, "01_lost_in_the_middle": depth_sweep,
            "02_context_vs_rag": context_vs_rag, "03_pg_discrete_retrieval": pg_discrete,
            "04_pg_continuous_retrieval": pg_continuous, "05_nli_answer_eval": nli,
            "06_rag_validation": rag_validation, "07_rag_ifeval": rag_ifeval}
