"""An item's reading view (/-/item), in-process on a run folder written here (no model): the answer passage framed
where the experiment placed it and the page opening there, a gold that the passage words otherwise said so, the
verdict with its probability, links back; item ids link to it and experiments are named as the README names them."""

import json
import re

import pytest
from lclab.explore.reading import answer_passage, experiment_name, fold_and_mark
from test_explore_guard import call

DOCS = ["Lisp was designed by John McCarthy.", "Viaweb was sold to Yahoo in 1998.", "Essays are written to learn."]
PROMPT = ("Answer the question using only the documents below.\n\n"
          + "\n\n".join(f"Document [{i}]\n{d}" for i, d in enumerate(DOCS)) + "\n\nQuestion: Who bought it?\nAnswer:")
ROW = {"fingerprint": "f0", "qa_id": "q0", "question": "Who bought Viaweb?", "gold": "Yahoo!", "response": "Yahoo",
       "judge_correct": True, "judge_correct_p": 0.83, "string_match": False, "position": 1, "n_documents": 3,
       "context_tokens": 600, "depth": 50}


@pytest.fixture
def explorer(tmp_path, monkeypatch):
    from lclab import paths
    from lclab.explore.server import app
    from lclab.explore.store import build

    run = tmp_path / "results" / "depth_sweep" / "t"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"experiment": "depth_sweep", "run_name": "t"}))
    (run / "items.jsonl").write_text(json.dumps(ROW) + "\n")
    (run / "items.samples.jsonl").write_text(json.dumps({"key": {"fingerprint": "f0"}, "id": "q0:600@50",
                                                         "input": PROMPT, "target": "Yahoo!"}) + "\n")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    return app(build(tmp_path / "results" / "lab.sqlite", tmp_path / "results"))


def test_the_answer_passage_is_the_document_the_experiment_placed_it_in():
    a, b = answer_passage(PROMPT, 1)
    assert PROMPT[a:b] == f"Document [1]\n{DOCS[1]}"
    a, b = answer_passage(PROMPT, 2)
    assert PROMPT[a:b] == f"Document [2]\n{DOCS[2]}"  # the last one ends before the question
    assert answer_passage(PROMPT, None) is None and answer_passage(PROMPT, 7) is None
    long = "x" * 5000 + PROMPT + "y" * 5000
    shown = fold_and_mark(long, "Yahoo", answer_passage(long, 1))
    assert re.search(r'<div id="answer"[^>]*>Document \[1\]\nViaweb was sold to <mark>Yahoo</mark> in 1998\.</div>',
                     shown)
    assert shown.count("characters folded") == 2  # far from the passage: folded on both sides


def test_an_item_reads_as_a_page_that_opens_at_its_passage_and_links_back(explorer):
    listing = call(explorer, "GET", "/lab/items")
    assert listing.status_code == 200
    link = re.search(r'href="(/-/item\?table=items&amp;rowid=\d+)"', listing.text)
    assert link, "an item id opens its reading view"
    assert "01 lost in the middle (depth_sweep)" in listing.text
    assert "&from=" in listing.text  # the script that makes each item link carry the list it is in
    page = call(explorer, "GET", link.group(1).replace("&amp;", "&"),
                headers={"Referer": "http://127.0.0.1:8765/lab/items?depth=50"})
    assert page.status_code == 200, page.text
    text = page.text
    assert 'id="answer"' in text and "box.scrollTop" in text
    assert "does not appear in it verbatim" in text  # "Yahoo!" is not in the passage as written
    for shown in ("Who bought Viaweb?", "Yahoo!", "0.83", "01 lost in the middle (depth_sweep)"):
        assert shown in text, shown
    assert 'href="/lab/items?run=depth_sweep%2Ft"' in text and 'href="/lab/summaries?run=depth_sweep%2Ft"' in text
    assert 'href="http://127.0.0.1:8765/lab/items?depth=50"' in text  # back to the filtered list
    foreign = call(explorer, "GET", link.group(1).replace("&amp;", "&"), headers={"Referer": "https://x.example/"})
    assert "x.example" not in foreign.text
    carried = call(explorer, "GET", link.group(1).replace("&amp;", "&") + "&from=%2Flab%2Fitems%3Fdepth%3D50")
    assert 'href="/lab/items?depth=50"' in carried.text  # Datasette sends no Referer: the link carries its list
    elsewhere = call(explorer, "GET", link.group(1).replace("&amp;", "&") + "&from=%2F%2Fx.example%2F")
    assert "x.example" not in elsewhere.text
    assert call(explorer, "GET", "/-/item?table=nope&rowid=1").status_code == 404
    assert call(explorer, "GET", "/-/item?table=items&rowid=99").status_code == 404


def test_experiments_are_named_by_their_notebook():
    assert experiment_name("context_vs_rag") == "02 context vs rag (context_vs_rag)"
    assert experiment_name("not_one") == "not_one"
