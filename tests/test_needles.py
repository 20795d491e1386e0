"""The harder needles at smoke size: one shared haystack (counted in the real 0.5B's tokens), distractors similar to
the question (ranked by the real embedder), several needles at once, and low-overlap question generation. What
these check is what the lab does with replies (tables, fractions, overlaps), so the deterministic fake model
answers and judges (lclab.models.fake); the smoke notebooks run the same code on the real 0.5B."""

import pandas as pd
import pytest
from conftest import SMOKE_CARD_TEXTS
from lclab.depth_sweep import build_trials, run_depth_sweep
from lclab.depth_sweep.haystacks import mean_similarity, spread_depths
from lclab.depth_sweep.parameters import Parameters as SweepParameters
from lclab.make_qa_set import make_qa_set
from lclab.make_qa_set.parameters import Parameters as QAParameters
from lclab.models import budget_counters
from lclab.models.embeddings import DEFAULT_EMBEDDER
from lclab.qa import load_validated
from lclab.text.corpus import corpus_dir

pytestmark = [pytest.mark.model]
SMALL, ANSWERER, JUDGE = "local/qwen2.5-coder-0.5b", "fake/answerer", "fake/judge"
SWEEP = dict(model=ANSWERER, judge_model=JUDGE, corpus="paul_graham", qa_path="data/pg_qa/qa.csv", seed=0,
             max_workers=1, max_answer_tokens=12, card_texts=SMOKE_CARD_TEXTS)


def test_a_shared_haystack_is_one_set_of_distractors_for_every_pair_ordered_for_prefix_reuse():
    _, pool, qa = load_validated("paul_graham", "data/pg_qa/qa.csv", 3)
    count, text = budget_counters(SMALL)
    trials = build_trials(qa, pool, [700], [0, 100], 0, (count, text), haystack="shared")
    deepest = [t for t in trials if t.depth == 100]
    assert [t.depth for t in trials] == [100, 100, 100, 0, 0, 0]  # one depth after the other, deepest first
    # Every pair's prompt holds the same haystack before its needle: at depth 100 all but the needle and question.
    prefixes = {t.prompt.split(f"Document [{t.position}]")[0] for t in deepest}
    assert len(prefixes) == 1 and all(count(t.prompt) <= 700 for t in trials)


@pytest.fixture
def few_essays(tmp_path):
    """The essay of the QA file's first validated pair and five others, with that pair alone in a QA file: a pool of
    ~70 passages to rank, not the 599 of every essay (embedding them all was most of this test's time)."""
    qa = pd.read_csv("data/pg_qa/qa.csv", dtype=str, keep_default_na=False)
    first = qa[qa["validated"] == "yes"].head(1)
    essays = corpus_dir("paul_graham")
    stem = first["doc_id"].item().split("#")[0]
    folder = tmp_path / "essays"
    folder.mkdir()
    for path in [essays / f"{stem}.txt"] + [p for p in sorted(essays.glob("*.txt")) if p.stem != stem][:5]:
        (folder / path.name).write_text(path.read_text())
    first.to_csv(tmp_path / "qa.csv", index=False)
    return str(folder), str(tmp_path / "qa.csv")


def test_similar_distractors_are_closer_to_the_question_than_random_ones(few_essays):
    corpus, qa_path = few_essays
    result = run_depth_sweep(SweepParameters(**{**SWEEP, "corpus": corpus, "qa_path": qa_path}, n_qa=1,
                                             context_tokens=[600], depths=[50], run_name="similar",
                                             distractors=["random", "similar"]))
    table = result.tables["by_distractors"].set_index("distractors")
    assert set(table.index) == {"random", "similar"} and table.loc["similar", "judge_n"] == 1
    _, pool, qa = load_validated(corpus, qa_path, 1)
    count, text = budget_counters(SMALL)
    similar = build_trials(qa, pool, [600], [50], 0, (count, text), distractors="similar")
    # MiniLM cosine of the question and its nearest passages, above that of the pool's average passage
    assert all(t.similarity > 0.15 for t in similar)
    assert all(t.similarity > mean_similarity(t.question, pool, DEFAULT_EMBEDDER) + 0.1 for t in similar)


def test_several_needles_at_spread_depths_score_the_fraction_found():
    result = run_depth_sweep(SweepParameters(**SWEEP, n_qa=2, context_tokens=[700], depths=[0], run_name="needles",
                                             needles=[1, 2]))
    table = result.tables["needles"]
    assert table["needles"].tolist() == [2] and table["groups"].tolist() == [1]
    assert 0 <= table["fraction_found"].iloc[0] <= 1 and spread_depths(2) == pytest.approx([100 / 3, 200 / 3])


def test_low_overlap_questions_record_their_overlap_with_the_passage():
    result = make_qa_set(QAParameters(generator_model=ANSWERER, corpus="paul_graham", passage_chars=1200, n_passages=1,
                                      min_passage_chars=400, seed=0, max_workers=1, run_name="low", low_overlap=True))
    generated = result.items
    assert len(generated) == 1 and 0 <= generated["question_overlap"].iloc[0] <= 1
    removed = int(result.summary.filter(like="removed_by_").sum(axis=1).iloc[0])
    assert len(result.data["review"]) + removed == 1  # reviewed, or rejected by a check with its reason
    assert 0 <= result.summary["mean_question_overlap"].iloc[0] <= 1
