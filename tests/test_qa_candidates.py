"""00's checks, candidate walk and sizing (#89): each check fails a planted bad pair of its class and passes a
planted good one (pairs written for these tests, about a made-up protocol, not taken from any review set); the
plan walks the same candidates through the same probes as the run; the study's size and a second run."""

import json
from dataclasses import replace

import pandas as pd
import pytest
from scipy.stats import binom
from lclab.qa import checks, generate
from lclab.qa.factoid_passages import not_factoid_reason
from lclab.text.corpus import Document
from lclab.text.headings import Where

PASSAGE = ("The Zorblat Protocol was designed in 1987 by Ada Kettering at the Harwell Laboratory. Its servers "
           "listen on port 7311 and answer every request within two seconds. The zorbctl program starts a server; "
           "its -q option silences the start-up banner, and its -p option chooses another port.")


@pytest.mark.parametrize("question, answer, check", [
    ("What is the name of the Zorblat Protocol?", "Zorblat Protocol", "answer_in_question"),
    ("Which port does the protocol described in the passage use?", "7311", "self_contained"),
    ("Who designed this protocol?", "Ada Kettering", "self_contained"),
    ("What does the -q option do?", "silences the start-up banner", "self_contained"),
    ("According to the text, when was it designed?", "1987", "self_contained"),
    ("Which lab does the library come from?", "Harwell Laboratory", "self_contained"),
])
def test_each_text_check_fails_a_planted_bad_pair_of_its_class(question, answer, check):
    results = checks.text_checks(question, answer, PASSAGE, "Zorblat Protocol reference")
    assert results[check] is False
    assert checks.first_text_failure(question, answer, PASSAGE, "Zorblat Protocol reference") == check


@pytest.mark.parametrize("question, answer", [
    ("Which port do Zorblat Protocol servers listen on?", "7311"),
    ("Who designed the Zorblat Protocol?", "Ada Kettering"),
    ("What does the -q option of zorbctl do?", "silences the start-up banner"),
    ("In which year was the Zorblat Protocol designed?", "1987"),
])
def test_a_planted_good_pair_passes_every_text_check(question, answer):
    assert all(checks.text_checks(question, answer, PASSAGE, "Zorblat Protocol reference").values())


def test_the_probes_match_an_answer_given_back_and_fail_one_that_is_not():
    assert checks.same_answer("port 7311", "7311") and checks.same_answer("Ada Kettering", "Kettering")
    assert not checks.same_answer("two seconds", "7311") and not checks.same_answer("", "7311")


def test_duplicates_are_the_same_answer_or_nearly_the_same_question():
    pairs = pd.DataFrame({"question": ["Which port do Zorblat servers listen on?", "Who designed Zorblat?",
                                       "Which port do the Zorblat servers listen on?", "When was it designed?",
                                       "What number is the Zorblat port?"],
                          "answer": ["7311", "Ada Kettering", "port 7311", "1987", "7311"]})
    assert checks.duplicates(pairs).tolist() == [True, True, False, True, False]


def test_a_failed_removing_check_removes_and_a_flagging_one_flags():
    row = {"question": "Which port do Zorblat Protocol servers listen on?", "answer": "7311", "passage": PASSAGE,
           "title": "Zorblat", "checks_round_trip": True, "checks_closed_book": False, "checks_duplicate": True}
    score = checks.pair_checks(row)
    assert score.value and checks.flags(score.metadata) == "closed_book"
    assert checks.pair_checks(row | {"checks_round_trip": False}).explanation == "round_trip"
    assert "closed_book" not in checks.REMOVES and "round_trip" in checks.REMOVES


@pytest.mark.parametrize("text, reason", [
    ("# Installation\n\n## Requirements\n\n### Linux\n\n## Usage", "headings"),
    ("1. Introduction\n2. Getting started\n3. Configuration\n4. Options\n5. Troubleshooting\n6. Index", "table_of_contents"),
    ("- [Home](https://example.org)\n- [Docs](https://example.org/docs)\n- [API](https://example.org/api)", "link_list"),
    ("![build](https://img.example/b.svg) ![cov](https://img.example/c.svg) ![pypi](https://img.example/p.svg)", "badges"),
    ("```\nimport zorb\nserver = zorb.Server(port=7311)\nserver.start(quiet=True)\n```", "code_only"),
    ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software. THE SOFTWARE "
     "IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND, and in no event shall the authors be liable for "
     "anything; merchantability or fitness for a particular purpose is disclaimed.", "licence_boilerplate"),
])
def test_passages_that_cannot_carry_a_factoid_are_told_apart_from_prose(text, reason):
    assert not_factoid_reason(text) == reason
    assert not_factoid_reason(PASSAGE) is None


def _scripted(monkeypatch, replies: dict):
    """The run's calls answered from `replies` (prompt -> text, by stage) and kept as a cache the plan reads."""
    cache, sent = {}, []

    class Reply:
        def __init__(self, text):
            self.text, self.json = text, (json.loads(text) if text.startswith("{") else None)

    def complete(model, prompt, *, stage, request):
        key = json.dumps(prompt)
        text = replies[stage](prompt)
        cache[(key, request.max_tokens)] = text
        sent.append((stage, key))
        return Reply(text)

    def cached_answers(model, prompts, request):
        return [cache.get((json.dumps(p), request.max_tokens)) for p in prompts]

    monkeypatch.setattr(generate, "complete", complete)
    import lclab.qa.planned as planned
    monkeypatch.setattr(planned, "cached_answers", cached_answers)
    return sent


def test_the_plan_walks_the_candidates_through_the_same_probes_as_the_run(monkeypatch):
    """Three candidates: one holds its answer (no probe), one comes back wrong (round trip fails), one comes back
    right and needs the passage: the run sends 1 generation, 2 round trips, 1 closed-book probe, and the plan,
    walking the cached replies, asks exactly those prompts under those stages."""
    pairs = {"pairs": [{"question": "What is the name of the Zorblat Protocol?", "answer": "Zorblat Protocol"},
                       {"question": "How fast do Zorblat servers answer?", "answer": "within two seconds"},
                       {"question": "Which port do Zorblat Protocol servers listen on?", "answer": "7311"}]}
    back = {"How fast": "ten seconds", "Which port": "7311"}
    sent = _scripted(monkeypatch, {
        "qa_generation": lambda prompt: json.dumps(pairs),
        generate.ROUND_TRIP: lambda prompt: next(v for k, v in back.items() if k in prompt),
        generate.CLOSED_BOOK: lambda prompt: "80"})
    passage = Document("z#0", PASSAGE, "zorblat.md")
    where = Where("Zorblat Protocol reference", "Servers")
    row = generate.generate_pair("fake/answerer", passage, where=where)
    assert (row["question"], row["checks_round_trip"], row["checks_closed_book"]) == (
        "Which port do Zorblat Protocol servers listen on?", True, True)
    made = [stage for stage, _ in sent]
    assert made == ["qa_generation", generate.ROUND_TRIP, generate.ROUND_TRIP, generate.CLOSED_BOOK]
    from lclab.qa.planned import planned_generation

    rows, finals = planned_generation("nb", "make_qa_set", "fake/answerer", [passage], where={"z#0": where})
    assert {r["gateway_stage"]: r["calls"] for r in rows} == {"qa_generation": 1, generate.ROUND_TRIP: 2,
                                                             generate.CLOSED_BOOK: 1}
    assert finals == [{"question": row["question"], "answer": row["answer"], "kept": True}]


def test_a_study_is_sized_by_its_pairs_and_a_second_run_samples_only_new_passages(tmp_path, monkeypatch):
    from lclab import paths
    from lclab.make_qa_set import sizing
    from lclab.make_qa_set.parameters import Parameters
    from lclab.text.corpus import passage_sha1

    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    pool = [Document(f"d{i}#0", (PASSAGE + " ") * 2 + str(i), f"d{i}.md") for i in range(40)]
    p = Parameters(corpus="x", n_pairs=8, run_name="s", passage_chars=1200)
    first, _, said = sizing.study_passages(p, pool, "make_qa_set")
    prior = sizing.PASS_PRIOR * sizing.KEEP_PRIOR  # the fewest passages that give 8 kept pairs with chance 0.8
    assert binom.sf(7, len(first), prior) >= p.reach > binom.sf(7, len(first) - 1, prior) and "priors" in said
    assert sizing.passages_for(8, prior, 0.5) < len(first) < 40
    folder = tmp_path / "make_qa_set" / "s"
    (folder / "manifest.json").write_text(json.dumps({"parameters": {"corpus": "x", "passage_chars": 1200}}))
    marks = ["yes", "yes", "no", "yes"] + [""] * 4
    pd.DataFrame({"qa_id": [f"q{i}" for i in range(8)], "passage_sha1": [passage_sha1(d.text) for d in first[:8]],
                  "validated": marks}).to_csv(folder / sizing.REVIEW, index=False)
    pd.DataFrame({"qa_id": ["r0", "r1"], "passage_sha1": [passage_sha1(d.text) for d in first[8:10]],
                  "validated": ""}).to_csv(folder / sizing.REJECTED, index=False)
    rates = sizing.corpus_rates("x", 1200, "make_qa_set")
    assert (rates.passed, rates.kept, rates.reviewed) == (0.8, 0.75, 4)
    second, _, _ = sizing.study_passages(replace(p, n_pairs=12), pool, "make_qa_set")
    expected = 3 + 4 * 0.75  # kept, and the unreviewed at the keep rate
    assert len(second) == sizing.passages_for(12 - expected, 0.8 * 0.75, p.reach)
    assert binom.sf(5, len(second), 0.6) >= 0.8 > binom.sf(5, len(second) - 1, 0.6)
    assert not {passage_sha1(d.text) for d in second} & {passage_sha1(d.text) for d in first[:10]}
