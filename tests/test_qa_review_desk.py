"""The QA review desk's logic (lclab.qa.review_desk) on a run folder written here: the seeded queue with an audit
share of the removed pairs mixed in, the blind view, each answer in its own file at once (edits keeping the
generated text), clear errors, the second reviewer's blind queue and Cohen's kappa, and the command line."""

import json
import subprocess
import sys

import pandas as pd
import pytest
from lclab.qa.review import REASONS, read_qa_file
from lclab.qa.review_desk import BLIND, REJECTED, REVIEW, SECOND, ReviewDesk, answer_at
from lclab.stats import kappa_with_ci

from qa_run import CHECKS, write_run


@pytest.fixture
def run(tmp_path):
    return write_run(tmp_path / "results")


def read(run, name=REVIEW):
    return pd.read_csv(run / name, dtype=str, keep_default_na=False).set_index("qa_id")


def test_the_queue_is_every_unreviewed_pair_and_an_audit_share_of_the_removed_ones_mixed_in(run):
    review, rejected = read(run), read(run, REJECTED)
    queue = ReviewDesk(run, "ann").queue()
    assert len(queue) == len(set(queue)) == 12 + 2  # 0.2 of the 10 removed pairs
    assert set(review.index) <= set(queue) and len(set(queue) & set(rejected.index)) == 2
    assert ReviewDesk(run, "bob").queue() == queue and ReviewDesk(run, "ann", seed=1).queue() != queue
    assert len(ReviewDesk(run, "ann", audit=0.5).queue()) == 12 + 5 and len(ReviewDesk(run, "a", audit=0).queue()) == 12
    positions = [i for seed in range(10) for i, q in enumerate(ReviewDesk(run, "a", seed=seed).queue())
                 if q in rejected.index]
    assert min(positions) < 12  # mixed in among the pairs for review, not appended after them
    desk = ReviewDesk(run, "ann")
    desk.record(queue[0], "yes")
    assert desk.queue() == queue[1:]  # the order does not move as pairs are reviewed


def test_the_view_is_blind_and_marks_the_answer_where_it_stands(run):
    desk = ReviewDesk(run, "ann")
    for qa_id in desk.queue():
        view = desk.view(qa_id)
        assert tuple(view) == BLIND
        at, answer = view["answer_start"], view["answer"]
        assert at >= 0 and view["passage"][at:at + len(answer)].lower() == answer.lower()
        shown = json.dumps(view)
        assert "low_overlap" not in shown and "real_question" not in shown and "True" not in shown
    assert answer_at("Go to Lisbon now.", "LISBON", 3) == 6 and answer_at("Go to Lisbon.", "Porto") == -1
    assert answer_at("Lisbon and lisbon", "lisbon", 11) == 11  # where 00 found it, not the first match


def test_each_answer_is_in_its_own_file_at_once_and_an_edit_keeps_the_generated_text(run):
    desk = ReviewDesk(run, "ann")
    queue, rejected = desk.queue(), set(read(run, REJECTED).index)
    kept = next(q for q in queue if q not in rejected)
    generated = read(run).loc[kept, "question"]
    assert desk.record(kept, "yes", question="  In which town is the market held today?  ", review_note="ok")
    row = read(run).loc[kept]
    assert (row["validated"], row["question"], row["original_question"]) == (
        "yes", "In which town is the market held today?", generated)
    assert row["reviewer"] == "ann" and row["reviewed_at"].endswith("+00:00") and row["review_note"] == "ok"
    assert list(read(run)[CHECKS].iloc[0]) == ["True"] * 3  # the columns the desk does not set are kept
    assert read_qa_file(run / REVIEW).loc[0, "qa_id"]  # 01/02 read the rewritten file as before
    desk.record(kept, "yes", question=generated, review_note="ok")  # edited back: nothing to keep
    assert read(run).loc[kept, "original_question"] == "" and read(run).loc[kept, "question"] == generated

    audited = next(q for q in queue if q in rejected)
    before = (run / REVIEW).read_text()
    desk.record(audited, "no", "2", "needs the chapter")
    assert (run / REVIEW).read_text() == before  # a removed pair's review never reaches qa_review.csv
    assert tuple(read(run, REJECTED).loc[audited, ["validated", "review_reason", "failed_check"]]) == (
        "no", REASONS[1], "real_question")


def test_a_repeat_is_done_and_a_bad_answer_is_an_error_that_writes_nothing(run):
    desk = ReviewDesk(run, "ann")
    qa_id = next(q for q in desk.queue() if q in read(run).index)
    assert desk.record(qa_id, "no", "wrong_answer")
    before = (run / REVIEW).read_text()
    assert desk.record(qa_id, "no", "wrong_answer") is False and (run / REVIEW).read_text() == before
    for args, message in [(("nope", "yes"), "no pair 'nope'"), ((qa_id, "no"), "needs a reason"),
                          ((qa_id, "no", "too_long"), "unknown reason 'too_long'"),
                          ((qa_id, "yes", "duplicate"), "takes no reason but 'other'"),
                          ((qa_id, "maybe"), "yes or no"), ((qa_id, "yes", "", "", " "), "cannot be empty")]:
        with pytest.raises(ValueError, match=message):
            desk.record(*args)
    with pytest.raises(ValueError, match="name the reviewer"):
        ReviewDesk(run).record(qa_id, "yes")
    with pytest.raises(ValueError, match="audit is a share"):
        ReviewDesk(run, "ann", audit=2)
    assert (run / REVIEW).read_text() == before
    desk.record(qa_id, "yes")  # a changed mind is a new answer
    assert read(run).loc[qa_id, "validated"] == "yes" and read(run).loc[qa_id, "review_reason"] == ""


def test_progress_counts_the_review_and_the_audit_apart(run):
    desk = ReviewDesk(run, "ann")
    rejected = set(read(run, REJECTED).index)
    for i, qa_id in enumerate(desk.queue()[:8]):
        desk.record(qa_id, "yes" if i % 2 else "no", "" if i % 2 else "other")
    got = desk.progress()
    answered = {**read(run)["validated"].to_dict(), **read(run, REJECTED)["validated"].to_dict()}
    kept = sum(v == "yes" for v in answered.values())
    assert (got["reviewed"], got["left"], got["kept"], got["kept_of"]) == (8, 6, kept, 8)
    assert got["kept_lo"] < kept / 8 < got["kept_hi"]
    assert got["audit_kept_of"] == sum(answered[q] != "" for q in rejected)
    assert got["review_kept_of"] + got["audit_kept_of"] == 8 and (got["for_review"], got["removed"]) == (12, 10)


def test_the_second_reviewer_reviews_the_first_reviewers_pairs_as_generated_and_kappa_is_given(run):
    first = ReviewDesk(run, "ann")
    queue = first.queue()
    for i, qa_id in enumerate(queue[:6]):
        first.record(qa_id, "yes" if i < 3 else "no", "" if i < 3 else "other",
                     question="Edited?" if i == 0 else None)
    second = ReviewDesk(run, "bob", second=True)
    assert sorted(second.queue()) == sorted(queue[:6]) and ReviewDesk(run, "Ann", second=True).queue() == []
    view = second.view(queue[0])
    assert view["question"] != "Edited?" and view["question"].startswith("Where did")  # as generated
    with pytest.raises(ValueError, match="reviewed first by another reviewer"):
        second.record(queue[7], "yes")
    second.record(queue[0], "yes")
    assert "too few pairs" in second.agreement()["text"] and second.agreement()["kappa"] is None
    answers = ["yes", "no", "yes", "no", "no"]  # against the first's yes yes yes no no no
    for qa_id, answer in zip(queue[1:6], answers):
        second.record(qa_id, answer, "" if answer == "yes" else "wrong_answer")
    assert len(pd.read_csv(run / SECOND)) == 6 and second.queue() == []
    assert (run / REVIEW).read_text().count("bob") == 0  # the first review is untouched
    got = second.agreement()
    expected = kappa_with_ci([1, 1, 1, 0, 0, 0], [1, 1, 0, 1, 0, 0])
    assert got["n"] == 6 and got["kappa"] == pytest.approx(expected["kappa"])
    assert f"{expected['kappa']:.2f}" in got["text"] and "6 pairs both reviewed" in got["text"]
    assert second.progress()["reviewed"] == 6


def cli(*args):
    return subprocess.run([sys.executable, "-m", "lclab.qa.review_desk", *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def test_the_command_line_gives_the_same_blind_sheet_and_records_a_file_of_decisions(run, tmp_path):
    sheet = cli("sheet", run, "--seed", 3)
    assert sheet.returncode == 0, sheet.stderr
    rows = [json.loads(line) for line in sheet.stdout.splitlines()]
    desk = ReviewDesk(run, seed=3)
    assert [r["qa_id"] for r in rows] == desk.queue() and rows[0] == desk.view(rows[0]["qa_id"])
    assert all(tuple(r) == BLIND for r in rows)
    decisions = tmp_path / "decisions.csv"
    pd.DataFrame([{"qa_id": rows[0]["qa_id"], "validated": "no", "review_reason": "not_factoid",
                   "review_note": "a list", "question": "", "answer": ""},
                  {"qa_id": rows[1]["qa_id"], "validated": "yes", "review_reason": "", "review_note": "",
                   "question": "", "answer": "Somewhere"}]).to_csv(decisions, index=False)
    before = {f: (run / f).read_text() for f in (REVIEW, REJECTED)}
    bad = tmp_path / "bad.csv"
    pd.read_csv(decisions).assign(review_reason=["not_factoid", "nonsense"]).to_csv(bad, index=False)
    refused = cli("record", run, bad, "--reviewer", "agent-1")
    assert refused.returncode == 2 and "unknown reason 'nonsense'" in refused.stderr
    assert {f: (run / f).read_text() for f in (REVIEW, REJECTED)} == before  # all checked before any is written
    recorded = cli("record", run, decisions, "--reviewer", "agent-1", "--seed", 3)
    assert recorded.returncode == 0 and "2 of 2 decisions changed a pair" in recorded.stderr
    done = pd.concat([read(run), read(run, REJECTED)])
    assert tuple(done.loc[rows[0]["qa_id"], ["validated", "review_reason", "reviewer"]]) == (
        "no", "not_factoid", "agent-1")
    assert done.loc[rows[0]["qa_id"], "original_question"] == ""  # an empty cell is no edit
    assert tuple(done.loc[rows[1]["qa_id"], ["answer", "original_answer"]]) == ("Somewhere", rows[1]["answer"])
    progress = json.loads(cli("progress", run).stdout)
    assert progress["reviewed"] == 2 and "too few pairs" in progress["agreement"]
