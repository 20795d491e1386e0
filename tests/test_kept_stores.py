"""The stores of replies the tests keep across sessions (conftest.kept_store: the model calls, the judge-card
verdicts) sit in a folder named by the llama.cpp build, its version and the lab's backend sources: a change to any
of them is a miss in both stores (a new call, a new verdict), never an old reply; an unchanged session reads
what the last one kept."""

import shutil
from types import SimpleNamespace

import pytest
from lclab.models import Request, complete, llama_engine
from lclab.models.accounting import ACCOUNTING
from lclab.scoring.judge_card import judge_card

import kept_stores
from conftest import KEPT_REPLIES, kept_store

STORES = tuple(KEPT_REPLIES)


def a_pytest_cache(root):
    """A config whose pytest cache makes its folders under `root` (as .pytest_cache/d), not the checkout's."""
    def mkdir(name):
        (root / name).mkdir(parents=True, exist_ok=True)
        return root / name

    return SimpleNamespace(cache=SimpleNamespace(mkdir=mkdir))


def copied_sources(tmp_path, monkeypatch):
    """The digest read from a copy of the lclab package, to edit."""
    copy = tmp_path / "lclab"
    shutil.copytree(kept_stores.SOURCES_ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(kept_stores, "SOURCES_ROOT", copy)
    return copy


def asked() -> int:
    """Requests since the last reset: calls made and those the model cache answered."""
    total = ACCOUNTING.table().set_index("stage").loc["total"]
    return int(total["calls"] + total["cache_hits"])


def change(what: str, tmp_path, monkeypatch) -> None:
    if what == "build flavour":  # the other of set-up's two llama.cpp builds
        other = "avx2" if llama_engine.cpu_build() == "avx512" else "avx512"
        monkeypatch.setattr(llama_engine, "cpu_build", lambda: other)
    elif what == "llama-server flags":  # a llama-server compiled with flags of its own
        binary = tmp_path / "bin" / "llama-server-0.3.36" / "llama-server"
        binary.parent.mkdir(parents=True)
        binary.touch()
        (binary.parent / "cmake.flags").write_text("-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF\n")
        monkeypatch.setattr(kept_stores, "llama_server_binary", lambda: binary)
    else:  # an edited backend module
        with open(copied_sources(tmp_path, monkeypatch) / "models" / "llama.py", "a") as fh:
            fh.write("# a changed line\n")


@pytest.mark.parametrize("what", ["build flavour", "llama-server flags", "backend source"])
def test_a_changed_build_or_backend_source_is_a_miss_in_both_kept_stores(what, tmp_path, monkeypatch):
    config = a_pytest_cache(tmp_path / "d")
    before = {name: kept_store(config, name) for name in STORES}
    assert {name: kept_store(config, name) for name in STORES} == before  # a warm session: the same folders
    prompt, request = "Where does the river bend?", Request(max_tokens=8)
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(before["model-calls"]))
    monkeypatch.setenv("LCLAB_CARD_DIR", str(before["judge-cards"]))
    complete("fake/answerer", prompt, stage="t", request=request)
    judge_card("fake/judge", "answer_correct", 4, progress=False)
    ACCOUNTING.reset()
    assert complete("fake/answerer", prompt, stage="t", request=request).cached  # kept: a hit
    judge_card("fake/judge", "answer_correct", 4, progress=False)
    assert asked() == 1  # the card's verdicts read from its store, not asked

    change(what, tmp_path, monkeypatch)
    after = {name: kept_store(config, name) for name in STORES}
    assert all(after[name] != before[name] for name in STORES), (before, after)
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(after["model-calls"]))
    monkeypatch.setenv("LCLAB_CARD_DIR", str(after["judge-cards"]))
    ACCOUNTING.reset()
    assert not complete("fake/answerer", prompt, stage="t", request=request).cached  # asked again
    assert ACCOUNTING.get("t").calls == 1
    card = judge_card("fake/judge", "answer_correct", 4, progress=False)
    assert ACCOUNTING.total_calls() == 1 + card["n"] + card["unscored"] > 1  # every verdict judged again


def test_an_edit_to_bookkeeping_keeps_the_stores_and_a_verdict_reader_only_the_card_stores(tmp_path, monkeypatch):
    config = a_pytest_cache(tmp_path / "d")
    before = {name: kept_store(config, name) for name in STORES}
    copy = copied_sources(tmp_path, monkeypatch)
    assert {name: kept_store(config, name) for name in STORES} == before  # the copy reads as the package
    with open(copy / "models" / "accounting.py", "a") as fh:  # counts calls, never decides a reply
        fh.write("# a changed line\n")
    assert {name: kept_store(config, name) for name in STORES} == before
    with open(copy / "scoring" / "logprob.py", "a") as fh:  # reads a verdict from the judge's reply
        fh.write("# a changed line\n")
    after = {name: kept_store(config, name) for name in STORES}
    assert after["model-calls"] == before["model-calls"] and after["judge-cards"] != before["judge-cards"]
