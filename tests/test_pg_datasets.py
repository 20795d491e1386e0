"""The Paul Graham retrieval datasets (seed 002): question set, points and labels, combinations and OR logic."""

import json

import pandas as pd
import pytest
from lclab.models import reset_backend_registry
from lclab.models.embeddings import get_embedder
from lclab.models.errors import LogprobsUnavailableError, ParseError
from lclab.models.fault_server import FaultServer
from lclab.paths import DATA
from lclab.pg_continuous import (
    combination_score,
    combinations_table,
    context_combinations,
    extract_facts,
    load_reviewed,
    or_binary,
    or_soft,
    pick_contexts,
    unique_facts,
)
from lclab.pg_discrete import attach_labels, candidate_ranks, load_questions, read_labels, retrieve_points, separation
from lclab.pg_discrete.parameters import Parameters
from lclab.pg_discrete.points import chosen_questions
from lclab.pg_discrete.run import score_points
from lclab.retrieval.chunking import Chunker
from lclab.retrieval.vectorstores import index_name, open_index
from lclab.runs.runner import Run
from lclab.text.corpus import Document, load_corpus

QUESTIONS = DATA / "pg_questions" / "questions.csv"
LABELS = DATA / "pg_questions" / "discrete_labels.csv"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("paul_graham")


@pytest.fixture(scope="module")
def essays(corpus):
    return {d.id: d.text for d in corpus.documents}


# --- the question set --------------------------------------------------------------------------

def test_question_set_has_at_least_15_questions_each_quoting_its_essay(essays):
    questions = load_questions(QUESTIONS, essays)  # checks every evidence quote against its essay
    assert len(questions) >= 15 and questions["essay"].nunique() == len(questions)


def test_a_question_whose_quote_is_not_in_its_essay_is_refused_by_row(tmp_path, essays):
    bad = pd.read_csv(QUESTIONS).head(2)
    bad.loc[1, "evidence"] = "A sentence Paul Graham never wrote."
    path = tmp_path / "q.csv"
    bad.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"row 3 \(pgq-02\): the evidence quote does not occur in essay 'avg'"):
        load_questions(path, essays)


def test_a_run_asks_the_named_questions_in_the_files_order_and_refuses_an_unknown_id(essays):
    questions = load_questions(QUESTIONS, essays)
    assert chosen_questions(questions, 0, ["pgq-05", "pgq-03"])["question_id"].tolist() == ["pgq-03", "pgq-05"]
    assert chosen_questions(questions, 1, ["pgq-05", "pgq-03"])["question_id"].tolist() == ["pgq-03"]
    assert chosen_questions(questions, 2, [])["question_id"].tolist() == ["pgq-01", "pgq-02"]
    with pytest.raises(ValueError, match=r"question_ids \['pgq-99'\] are not in the question file"):
        chosen_questions(questions, 0, ["pgq-03", "pgq-99"])


# --- discrete points and labels ------------------------------------------------------------------

def test_candidates_are_the_first_and_the_last_ranks():
    assert candidate_ranks(5, 2, 2) == {"positive": [1, 2], "negative": [4, 5]}
    with pytest.raises(ValueError, match="within top 3"):
        candidate_ranks(3, 2, 2)


def test_points_join_the_retrieved_chunks_per_candidate(tmp_path):
    docs = [Document("cats", "Cats sleep most of the day and purr when content. " * 3),
            Document("dogs", "Dogs bark at strangers and fetch sticks in the park. " * 3),
            Document("tea", "Green tea is brewed with water below boiling point. " * 3),
            Document("rust", "Rust programs are compiled ahead of time by rustc. " * 3)]
    chunker = Chunker(400, "chars")
    index = open_index("chroma", "pts", get_embedder("fake/words"), directory=tmp_path)  # plumbing: hashed words
    index.add(chunker.split(docs))
    questions = pd.DataFrame([{"question_id": "q1", "essay": "cats", "question": "Why do cats purr?",
                               "golden_answer": "Because they are content."}])
    points = retrieve_points(index, questions, top_k=4, n_positive=2, n_negative=2)
    assert list(points["point_id"]) == ["q1:pos", "q1:neg"]
    pos = points.iloc[0]
    assert pos["chunk_ids"].split(",")[0] == "cats::0"  # the obvious chunk ranks first
    assert pos["context"].startswith("Cats sleep") and "\n\n" in pos["context"]
    assert set(",".join(points["chunk_ids"]).split(",")) == {"cats::0", "dogs::0", "tea::0", "rust::0"}


def test_the_committed_labels_cover_every_default_point_with_its_exact_text(corpus, essays, tmp_path,
                                                                          shared_embeddings):
    # The labels were made by reading the points this retrieval returns; if the corpus, the chunking,
    # the embedder or the store's ranking drifts, this fails instead of labels landing on other text.
    chunker = Chunker(2000, "chars")
    emb = get_embedder("local/all-MiniLM-L6-v2")
    index = open_index("chroma", index_name("pg", chunker.name, emb.spec), emb, directory=tmp_path)
    index.add(chunker.split(corpus.documents))
    points = attach_labels(retrieve_points(index, load_questions(QUESTIONS, essays), 5, 2, 2), read_labels(LABELS))
    assert points["labelled"].all(), points.loc[~points["labelled"], "point_id"].tolist()
    first15 = points[points["question_id"] <= "pgq-15"]
    kept = first15[~first15["ambiguous"].astype(bool)]
    # The numbers data/pg_questions/README.md and the closing note report.
    assert (len(first15), len(kept), (kept["label"] == 0).sum(), (kept["label"] == 1).sum()) == (30, 27, 20, 7)


def test_a_label_never_lands_on_changed_text():
    points = pd.DataFrame([{"point_id": "q:pos", "question_id": "q", "chunk_ids": "a::0,b::1", "context_sha1": "new"}])
    labels = pd.DataFrame([{"question_id": "q", "chunk_ids": "a::0,b::1", "context_sha1": "old", "label": 1,
                            "ambiguous": False, "reason": "r"}])
    assert not attach_labels(points, labels)["labelled"].any()


def test_malformed_labels_are_refused_naming_the_row(tmp_path):
    df = pd.read_csv(LABELS, dtype=str).head(3)
    df.loc[1, "label"] = "yes"
    df.loc[2, "ambiguous"] = "maybe"
    df.to_csv(tmp_path / "l.csv", index=False)
    with pytest.raises(ValueError, match=r"row 3 \(pgq-01:neg\): label 'yes'.*row 4 \(pgq-02:pos\): ambiguous 'maybe'"):
        read_labels(tmp_path / "l.csv")


def _point(pid="q1:pos"):
    return pd.DataFrame([{"point_id": pid, "question_id": "q1", "candidate": "positive", "chunk_ids": "a::0",
                          "context_sha1": "abc", "question": "Is the sky blue?", "golden_answer": "Yes, it is.",
                          "context": "The sky is blue."}])


def _asked(model: str, require_logprobs: bool = False) -> Parameters:
    return Parameters(models=[model], require_logprobs=require_logprobs, max_workers=1)


def test_a_backend_without_logprobs_scores_by_the_sampled_token_and_flags_every_row(no_logprobs_server):
    with Run("pg_discrete", "test") as run:
        rows = score_points(run, _point(), _asked(no_logprobs_server))
    assert rows.loc[0, "weighted_source"] == "sampled"
    assert rows.loc[0, "weighted"] == 1.0 and rows.loc[0, "sampled"] == 1.0
    assert pd.isna(rows.loc[0, "weighted_mass_outside"])
    scored = rows.merge(_point().assign(labelled=True, ambiguous=False, label=1), on="point_id")
    assert separation(scored)["sampled_fallback"].tolist() == [1, 1]


def test_the_auc_intervals_resample_questions_not_points():
    import numpy as np
    from lclab.pg_discrete.run import models_paired
    from lclab.scoring.score_eval import paired_auc_difference
    from lclab.stats.card import cluster_auc_ci

    rng = np.random.default_rng(2)
    questions = np.repeat([f"q{i}" for i in range(8)], 2)  # a positive and a negative candidate per question
    labels = np.tile([1, 0], 8) * (rng.random(16) < 0.8)
    point_ids = [f"{q}:{c}" for q, c in zip(questions, ["pos", "neg"] * 8)]
    scored = pd.concat([pd.DataFrame({"model": m, "point_id": point_ids, "question_id": questions, "label": labels,
                                      "labelled": True, "ambiguous": False,
                                      "weighted": np.clip(labels * 0.3 + rng.random(16) * 0.7, 0, 1),
                                      "sampled": rng.integers(0, 2, 16).astype(float)}) for m in ("a", "b")])
    row = separation(scored).iloc[0]
    assert (row["auc_lo"], row["auc_hi"]) == cluster_auc_ci(labels, scored["weighted"].to_numpy()[:16], questions)
    paired = models_paired(scored).iloc[0]
    by_question = paired_auc_difference(labels, scored["weighted"].to_numpy()[16:], scored["weighted"].to_numpy()[:16],
                                        clusters=questions)
    assert (paired["difference_lo"], paired["difference_hi"]) == (by_question["difference_lo"],
                                                                   by_question["difference_hi"])


def test_a_paired_auc_difference_over_one_question_has_no_interval_and_no_test():
    from lclab.scoring.score_eval import paired_auc_difference

    # Two points of one question (a smoke run): every resample is that question again, so no interval and no p
    # (not a zero-width interval with p = 0); the difference itself is still reported.
    one = paired_auc_difference([1, 0], [0.9, 0.1], [0.4, 0.6], clusters=["q1", "q1"])
    assert one["difference"] == 1.0 and one["n_clusters"] == 1
    assert all(one[k] != one[k] for k in ("difference_lo", "difference_hi", "p_value"))
    two = paired_auc_difference([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], [0.4, 0.6, 0.7, 0.2],
                                clusters=["q1", "q1", "q2", "q2"])
    assert two["n_clusters"] == 2 and two["difference_lo"] == two["difference_lo"]


def test_a_run_on_an_endpoint_without_logprobs_replays_with_no_call(no_logprobs_server, monkeypatch):
    from lclab.models import ACCOUNTING
    from lclab.models.replay import REPLAY_ENV

    with Run("pg_discrete", "made") as run:
        made = score_points(run, _point(), _asked(no_logprobs_server))
    monkeypatch.setenv(REPLAY_ENV, "1")  # what rescore runs under: the cache only
    ACCOUNTING.reset()
    with Run("pg_discrete", "replayed") as run:
        replayed = score_points(run, _point(), _asked(no_logprobs_server))
    assert int(ACCOUNTING.table()["calls"].sum()) == 0  # the logprob request's failure was kept, not asked again
    assert replayed[["weighted", "weighted_source", "sampled"]].equals(made[["weighted", "weighted_source", "sampled"]])


def test_a_run_that_demands_logprobs_stops_at_the_first_point(no_logprobs_server):
    points = pd.concat([_point("q1:pos"), _point("q1:neg")], ignore_index=True)
    with pytest.raises(LogprobsUnavailableError, match="requires logprobs"), Run("pg_discrete", "test") as run:
        score_points(run, points, _asked(no_logprobs_server, require_logprobs=True))
    assert not (run.dir / "scores.jsonl").exists()  # nothing half-scored was written


# --- continuous: contexts, combinations, OR --------------------------------------------------------

def test_120_combinations_of_two_to_seven_contexts():
    combos = context_combinations(["G1", "G2", "G3", "G4", "N1", "N2", "N3"])
    assert len(combos) == 120 and len(set(combos)) == 120
    assert [sum(len(c) == k for c in combos) for k in range(2, 8)] == [21, 35, 35, 21, 7, 1]


def test_or_combines_binary_and_soft_scores():
    assert or_binary([0.2, 0.7]) == 1.0 and or_binary([0.2, 0.4]) == 0.0
    assert or_soft([0.5, 0.5]) == pytest.approx(0.75) and or_soft([0.0, 0.0, 1.0]) == 1.0
    # A missing score decides nothing when another context covers the fact, and is unknown otherwise.
    assert or_binary([None, 0.9]) == 1.0 and or_binary([None, 0.1]) is None and or_soft([None, 0.9]) is None


def test_the_seeds_worked_example_by_construction():
    # Two contexts, 14 facts: context 1 alone covers 4, context 2 alone covers 8, together 11 -> 11/14 = 0.7857.
    ctx1 = [0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    ctx2 = [1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0]
    facts = {f"f{i}": {"C1": float(a), "C2": float(b)} for i, (a, b) in enumerate(zip(ctx1, ctx2))}
    assert combination_score(facts, ("C1",), or_binary) == (pytest.approx(4 / 14), 0)
    assert combination_score(facts, ("C2",), or_binary) == (pytest.approx(8 / 14), 0)
    value, unknown = combination_score(facts, ("C1", "C2"), or_binary)
    assert round(value, 4) == 0.7857 and unknown == 0


def test_combinations_table_counts_golden_and_noisy_and_reports_unknowns():
    scores = pd.DataFrame([
        {"style": s, "fact_id": f"{s}-1", "context_id": c, "p": p}
        for s in ("io", "cot") for c, p in (("G1", 0.9), ("G2", 0.1), ("N1", 0.2))
    ] + [{"style": "io", "fact_id": "io-2", "context_id": c, "p": p}
         for c, p in (("G1", 0.1), ("G2", None), ("N1", 0.3))])
    table = combinations_table(scores, ["G1", "G2", "N1"]).set_index("contexts")
    assert list(table.index) == ["G1+G2", "G1+N1", "G2+N1", "G1+G2+N1"]
    assert table.loc["G2+N1", ["n_golden", "n_noisy"]].tolist() == [1, 1]
    assert table.loc["G1+N1", "cot_binary"] == 1.0 and table.loc["G2+N1", "cot_binary"] == 0.0
    # io-2 has no score on G2: where G2 is in the set and nothing else covers io-2, io-2 is left out.
    assert table.loc["G2+N1", "io_binary"] == 0.0 and table.loc["G2+N1", "io_binary_unknown"] == 1
    assert table.loc["G1+N1", "io_binary"] == 0.5 and table.loc["G1+N1", "io_binary_unknown"] == 0
    assert table.loc["G1+N1", "io_soft"] == pytest.approx(((1 - 0.1 * 0.8) + (1 - 0.9 * 0.7)) / 2)


def test_golden_contexts_are_consecutive_and_noisy_ones_seeded_from_other_essays(corpus):
    chunks = Chunker(2000, "chars").split(corpus.documents)
    contexts = pick_contexts(chunks, "web20", 1, 4, 3, seed=0)
    assert [c.chunk.chunk_id for c in contexts[:4]] == ["web20::1", "web20::2", "web20::3", "web20::4"]
    noisy_docs = [c.chunk.doc_id for c in contexts[4:]]
    assert "web20" not in noisy_docs and len(set(noisy_docs)) == 3
    assert pick_contexts(chunks, "web20", 1, 4, 3, seed=0) == contexts
    assert pick_contexts(chunks, "web20", 1, 4, 3, seed=1)[4:] != contexts[4:]
    with pytest.raises(ValueError, match="largest start: 9"):
        pick_contexts(chunks, "web20", 11, 4, 3, seed=0)
    with pytest.raises(ValueError, match="not in the corpus"):
        pick_contexts(chunks, "no-such-essay", 0, 4, 3, seed=0)


def test_the_reviewed_golden_response_is_used_only_for_its_own_chunks(corpus):
    chunks = Chunker(2000, "chars").split(corpus.documents)
    path = DATA / "pg_continuous" / "golden_qa.json"
    golden = pick_contexts(chunks, "web20", 1, 4, 3, seed=0)[:4]
    reviewed = load_reviewed(path, golden)
    assert reviewed and reviewed["answer"] == json.loads(path.read_text())["answer"]
    assert load_reviewed(path, pick_contexts(chunks, "web20", 2, 4, 3, seed=0)[:4]) is None


def test_fact_lists_are_deduplicated_and_cleaned():
    assert unique_facts(["- The sky is blue.", "the sky is blue", "  ", "2. Grass is green."]) == [
        "The sky is blue.", "Grass is green."]


def test_a_fact_extraction_reply_without_json_is_a_parse_error_not_an_empty_list(monkeypatch):
    with FaultServer(reply="Here are the facts: the sky is blue.") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        reset_backend_registry()
        try:
            with pytest.raises(ParseError, match="facts"):
                extract_facts("openai/garbage", "The sky is blue.", "io")
        finally:
            reset_backend_registry()
