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


RAG_DOCS = {"long": ["Essays are written to learn.",
                     "Lisp was designed by McCarthy. Years later Viaweb was sold to Yahoo."],
            "rag": ["Lisp was designed by McCarthy.", "Essays are written to learn.",
                    "Years later Viaweb was sold to Yahoo."],
            "rag@1": ["Lisp was designed by McCarthy."], "missed": ["Essays are written to learn."]}


def numbered(docs: list[str]) -> str:
    return ("Answer the question using only the documents below.\n\n"
            + "\n\n".join(f"Document [{i}]\n{d}" for i, d in enumerate(docs)) + "\n\nQuestion: Who bought it?\nAnswer:")


@pytest.fixture
def rag_explorer(tmp_path, monkeypatch):
    """A 02 run of one QA pair: its long context (answer document 1, holding the gold), a retrieval that read the
    answer document's first chunk (no gold) and, as document 2, its second (the gold), rag@1 that read only the
    first chunk, and a retrieval that missed the answer document."""
    from lclab import paths
    from lclab.explore.server import app
    from lclab.explore.store import build

    run = tmp_path / "results" / "context_vs_rag" / "t"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"experiment": "context_vs_rag", "run_name": "t"}))
    positions = {"long": 1, "rag": 0, "rag@1": 0, "missed": None}
    rows = [{"fingerprint": m, "qa_id": "q0", "noise_pct": 50, "method": "long_context" if m == "long" else m,
             "answerable": True, "question": "Who bought Viaweb?", "gold": "sold to Yahoo", "response": "Yahoo",
             "judge_correct": True, "position": positions[m],
             "retrieved": None if m == "long" else json.dumps([f"c{i}" for i in range(len(RAG_DOCS[m]))])}
            for m in RAG_DOCS]
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "items.samples.jsonl").write_text("".join(json.dumps({"key": {"fingerprint": m}, "id": f"q0:50:{m}",
                                                                 "input": numbered(d)}) + "\n"
                                                     for m, d in RAG_DOCS.items()))
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    return app(build(tmp_path / "results" / "lab.sqlite", tmp_path / "results"))


def test_a_retrieval_item_frames_the_chunk_that_holds_the_gold_or_says_none_does(rag_explorer):
    pages = {}
    for rowid, method in enumerate(RAG_DOCS, start=1):
        page = call(rag_explorer, "GET", f"/-/item?table=context_vs_rag__items&rowid={rowid}")
        assert page.status_code == 200, page.text[:300]
        framed = re.search(r'<div id="answer"[^>]*>(.*?)</div>', page.text, re.S)
        where = re.search(r'<p id="where">(.*?)</p>', page.text, re.S).group(1)
        pages[method] = (re.sub(r"<[^>]+>", "", framed.group(1)) if framed else None, where)
    assert pages["long"][0].startswith("Document [1]\nLisp")  # the long context's answer document, as placed
    assert pages["rag"][0] == f"Document [2]\n{RAG_DOCS['rag'][2]}"  # the chunk with the gold, not the first one
    assert "document 2, the retrieved chunk that holds the gold" in pages["rag"][1]
    assert "first retrieved chunk is document 0" in pages["rag"][1]
    framed, where = pages["rag@1"]
    assert "no retrieved chunk holds the gold" in where and "did not read" in where  # not "words it otherwise"
    assert "otherwise" not in where and framed == f"Document [0]\n{RAG_DOCS['rag@1'][0]}"
    assert pages["missed"][0] is None and "retrieval missed the answer document" in pages["missed"][1]
