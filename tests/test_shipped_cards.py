"""The embedded judges' card verdicts the repo ships (data/judge_cards): they cover the texts a default card reads,
a first card here judges only a few of them again, and a machine whose verdicts differ judges every text itself."""

import json

import pytest
from lclab.models import ACCOUNTING, llama_engine
from lclab.models.local_models import EMBEDDED_MODELS
from lclab.paths import DATA
from lclab.scoring import judge_card as jc
from lclab.scoring import shipped_cards
from lclab.scoring.card_store import prompt_id, read_verdicts, store_name
from lclab.scoring.shipped_texts import KINDS

DEFAULT_CARD_TEXTS = 20  # params/default.yaml's card_texts
SHIPPED_JUDGES = ["local/qwen2.5-coder-0.5b", "local/qwen2.5-coder-1.5b"]


@pytest.mark.parametrize("build", ["avx2", "avx512"])
@pytest.mark.parametrize("judge", SHIPPED_JUDGES)
def test_the_shipped_verdicts_cover_every_text_a_default_card_reads_with_todays_prompts(judge, build):
    """A judge prompt or a label file changed since the verdicts were written leaves texts without one (a first
    run then judges them): `python -m lclab.scoring.write_shipped_cards JUDGE` writes them again, on a machine of
    each build."""
    folder = DATA / "judge_cards" / store_name(judge)
    folder = folder / build if build != "avx2" else folder
    made = json.loads((folder / "shipped.json").read_text())
    assert made["judge"] == judge and made["model_sha256"] == EMBEDDED_MODELS[judge.split("/")[1]].sha256
    assert made.get("llama_cpp_build", "avx2") == build
    for kind, k in KINDS.items():
        shipped = read_verdicts(folder / f"{kind}.jsonl")
        wanted = {prompt_id(k.prompt(r)) for r in jc.card_texts(kind, DEFAULT_CARD_TEXTS).itertuples(index=False)}
        assert wanted <= set(shipped), f"{kind}: {len(wanted - set(shipped))} texts without a shipped verdict"
        assert all(r["verdict"] is not None and 0 <= r["p"] <= 1 for r in shipped.values())


def test_a_build_reads_its_own_shipped_verdicts_where_the_repo_has_them(tmp_path, monkeypatch):
    judge = "local/qwen2.5-coder-0.5b"
    folder = tmp_path / "shipped" / store_name(judge)
    (folder / "avx512").mkdir(parents=True)
    (folder / "shipped.json").write_text("{}")
    monkeypatch.setenv("LCLAB_SHIPPED_CARDS", str(tmp_path / "shipped"))
    monkeypatch.setattr(llama_engine, "cpu_build", lambda: "avx512")
    assert shipped_cards.shipped_folder(judge) == folder  # none of its own yet: the AVX2 build's, checked first
    (folder / "avx512" / "shipped.json").write_text("{}")
    assert shipped_cards.shipped_folder(judge) == folder / "avx512"
    monkeypatch.setattr(llama_engine, "cpu_build", lambda: "avx2")
    assert shipped_cards.shipped_folder(judge) == folder


def ship(tmp_path, judge, kind, shift=0.0):
    """This session's verdicts of `judge` on `kind` written as a repo would ship them, each p moved `shift` toward
    0.5 (so always by that much)."""
    rows = read_verdicts(jc.store_path(judge, kind))
    folder = tmp_path / "shipped" / store_name(judge)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shipped.json").write_text(json.dumps(
        {"judge": judge, "model_sha256": EMBEDDED_MODELS[judge.split("/")[1]].sha256}))
    lines = [json.dumps(r | {"p": r["p"] + (shift if r["p"] < 0.5 else -shift)}) for r in rows.values()]
    (folder / f"{kind}.jsonl").write_text("\n".join(lines) + "\n")
    return folder.parent


def asked() -> int:
    """The judge's requests since the last reset: calls made, and those the kept cache answered (a warm rerun)."""
    total = ACCOUNTING.table().set_index("stage").loc["total"]
    return int(total["calls"] + total["cache_hits"])


@pytest.mark.model
def test_a_first_card_checks_two_shipped_verdicts_then_reads_the_rest_and_a_difference_judges_all(
        tmp_path, monkeypatch, shared_cards, kept_model_calls, capsys):
    judge, kind, n = "local/qwen2.5-coder-0.5b", "answer_correct", 6
    monkeypatch.setenv("LCLAB_SHIPPED_CARDS", str(tmp_path / "none"))
    judged_here = jc.judge_card(judge, kind, n, progress=False)  # the session's store: usually no call
    # The judge's replies come from the cache the smoke notebooks keep (kept_model_calls): what is counted is what
    # the card asks, made or replayed, so a warm rerun asks the 0.5B nothing.
    monkeypatch.setenv("LCLAB_SHIPPED_CARDS", str(ship(tmp_path, judge, kind)))

    monkeypatch.setenv("LCLAB_CARD_DIR", str(tmp_path / "a-new-machine"))
    ACCOUNTING.reset()
    assert len(jc.prompts_to_judge(judge, kind, n)) == shipped_cards.CHECKED  # what a plan prices
    first = jc.judge_card(judge, kind, n, progress=False)
    assert asked() == shipped_cards.CHECKED
    assert {k: first[k] for k in ("n", "auc", "sensitivity")} == pytest.approx(
        {k: judged_here[k] for k in ("n", "auc", "sensitivity")}, nan_ok=True)
    assert jc.prompts_to_judge(judge, kind, n) == []
    ACCOUNTING.reset()
    jc.judge_card(judge, kind, n, progress=False)
    assert asked() == 0  # checked once per machine: not even asked of the cache

    # Verdicts 0.3 apart from this machine's: every text judged here, said on stderr, and the next card too.
    monkeypatch.setenv("LCLAB_SHIPPED_CARDS", str(ship(tmp_path / "off", judge, kind, shift=0.3)))
    monkeypatch.setenv("LCLAB_CARD_DIR", str(tmp_path / "another-machine"))
    ACCOUNTING.reset()
    capsys.readouterr()
    apart = jc.judge_card(judge, kind, n, progress=False)
    assert asked() == apart["n"] + apart["unscored"] == len(jc.card_texts(kind, n))
    assert "differ from the shipped ones" in capsys.readouterr().err
    assert len(jc.prompts_to_judge(judge, kind, n)) == 0 and shipped_cards.usable(judge, kind) == {}
