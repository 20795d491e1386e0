"""Plan = run on the deterministic fake model (lclab.models.fake), per registered experiment, in seconds: each
experiment's run at its notebook's smoke profile with `fake/answerer` answering and `fake/judge` judging; its
plan, made before the run, counts the calls the run made per (gateway stage, model); a second run and a replay
make no call. The real model's runs of the same notebooks, through papermill, are test_notebooks.py."""

import json

import pandas as pd
import pytest
from lclab import paths
from lclab.experiments import experiments, get
from lclab.models import Request, backend_for, complete
from lclab.models.fake import ARRAY_LENGTH
from lclab.models.replay import REPLAY_ENV
from lclab.planning import priors
from lclab.qa.generate import MAX_ASKS
from lclab.runs.declared import declared
from lclab.runs.notebooks import NOTEBOOKS, load_profile, notebook_defaults, parameters_for

from item_pages import assert_every_item_page_shows_the_prompt_sent
from test_notebooks import (SYNTHETIC_TASKS, assert_plan_counted_the_run, assert_synthetic_tables, planned_calls,
                            requests_made)

ANSWERER, JUDGE, EMBEDDER = "fake/answerer", "fake/judge", "fake/words"
# The experiments whose every arm's answering prompt the issue asked to see on its item page (#68): they must have some.
ARMS_ON_PAGES = {"depth_sweep", "context_vs_rag", "rag_validation", "synthetic"}
PASSAGES_FRAMED = {"depth_sweep", "context_vs_rag"}  # those that place an answer passage among numbered documents
# Each run's three passes in one process (2026-11-28, the fake embedder): only the order matters (conftest hands
# the longest out first).
TYPICAL_SECONDS = {"nli": 9, "rag_validation": 7, "pg_discrete": 7, "context_vs_rag": 6, "synthetic": 6,
                   "depth_sweep": 5}


def fake_parameters(nb) -> dict:
    """The smoke profile's parameters with every model the fake: the answerer, and the judge apart from it."""
    params = parameters_for(nb, load_profile("smoke"))
    defaults = notebook_defaults(nb)
    out = dict(params)
    for name in defaults:
        if name == "judge_model":
            out[name] = JUDGE
        elif name in ("model", "generator_model"):
            out[name] = ANSWERER
        elif name == "embedder":  # retrieval's plumbing, not its quality: no embedding model to load
            out[name] = EMBEDDER
        elif name == "models":
            out[name] = [ANSWERER]
    return out


def test_the_fake_answers_every_shape_the_lab_asks_the_same_way_every_time(tmp_path, monkeypatch):
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {
        "type": "object", "properties": {"id": {"type": "integer"}, "refusal": {"type": "boolean"}}}}}}
    tags = complete(ANSWERER, "Tag these. Reply with exactly 3 entries.", stage="t",
                    request=Request(max_tokens=64, response_format=schema)).json["tags"]
    assert [t["id"] for t in tags] == [1, 2, 3] and all(isinstance(t["refusal"], bool) for t in tags)
    verdict = complete(JUDGE, "Return a JSON object with a `correct` key as a boolean.", stage="t",
                       request=Request(max_tokens=32, response_format="json", logprobs=True, top_logprobs=5))
    assert set(verdict.json) == {"correct"} and verdict.logprobs
    token = complete(JUDGE, "Reply 1 or 0.", stage="t", request=Request(max_tokens=1, logprobs=True, top_logprobs=5))
    assert token.text in ("0", "1") and {t for t, _ in token.logprobs[0]["top"]} == {"0", "1"}
    text = complete(ANSWERER, "Where does the river bend?", stage="t", request=Request(max_tokens=8))
    again = backend_for(ANSWERER).complete([{"role": "user", "content": "Where does the river bend?"}],
                                           Request(max_tokens=8).settings, 1.0)
    assert text.text == again.text and text.completion_tokens <= 8  # deterministic, within its budget


def assert_every_answer_prompt_was_written_before_its_call(results):
    """Every item row's answering prompt (its `prompt_sha256`) is in its log's prompts file: written out where it
    was built during the run (a RAG answer's chunks), marked as the sample's input where it is that; and the
    explorer's store shows that exact prompt."""
    from lclab.explore.store import item_rows
    from lclab.models import prompt_sha256
    from lclab.runs.prompts_log import read

    logs = list(results.glob("*/*/*.prompts.jsonl"))
    assert logs, f"no prompts log under {results}"
    for log in logs:
        items = log.with_name(log.name.replace(".prompts.jsonl", ".jsonl"))
        sent = {p["prompt_sha256"]: p for p in read(log)}
        manifest = json.loads((log.parent / "manifest.json").read_text())
        assert log.name in manifest["prompt_logs"]
        rows = [json.loads(line) for line in items.read_text().splitlines()]
        hashed = [r for r in rows if r.get("prompt_sha256")]
        assert all(r["prompt_sha256"] in sent for r in hashed), (log, len(hashed))
        if not items.with_suffix(".samples.jsonl").exists():
            continue
        for row in item_rows(log.parent, items, manifest):
            entry = sent.get(row.get("prompt_sha256"))
            if entry is not None and "prompt" in entry:  # built during the run: shown as sent, not the sample's input
                assert row["prompt"] == (entry["prompt"] if isinstance(entry["prompt"], str) else row["prompt"])
                if isinstance(entry["prompt"], str):
                    assert prompt_sha256([{"role": "user", "content": row["prompt"]}]) == entry["prompt_sha256"]


RUNNABLE = sorted(e.name for e in experiments() if e.run and (NOTEBOOKS / f"{e.notebook_stem}.ipynb").exists())
# Every experiment a notebook runs, pinned: one that stops registering (or a new one) is seen here, not skipped.
REGISTERED = ["context_vs_rag", "depth_sweep", "make_qa_set", "nli", "pg_continuous", "pg_discrete", "rag_ifeval",
              "rag_validation", "synthetic"]


def test_the_registered_experiments_are_the_ones_the_notebooks_run():
    assert RUNNABLE == REGISTERED


def planned_prompt_tokens(nb, params) -> dict:
    """{(gateway stage, model): prompt tokens} of the plan's stages whose every prompt it built as the run builds
    it (no row of the stage said to be "estimated": priced by a template, or built from a stand-in), before the
    run."""
    from lclab.planning.experiment_plan import plan_notebook
    from lclab.planning.plan import new_plan

    new_plan()
    tokens, priced = {}, set()
    for row in plan_notebook(nb.stem, params, notebook_defaults(nb)):
        key = (row.get("gateway_stage"), row["model"])
        if not key[0] or key[0] in ("embed", "judge card") or not row["calls"]:
            continue
        if "estimated" in row["stage"]:
            priced.add(key)
        tokens[key] = tokens.get(key, 0) + row["prompt_tokens"]
    return {key: n for key, n in tokens.items() if key not in priced}


def prompt_tokens_read(results) -> dict:
    """{(gateway stage, model): prompt tokens} the runs under `results` sent or read from the cache."""
    read: dict = {}
    for path in results.glob("*/*/accounting.csv"):
        for r in pd.read_csv(path).itertuples():
            if r.stage != "total":
                key = (r.stage, r.model)
                read[key] = read.get(key, 0) + int(r.prompt_tokens) + int(r.cached_prompt_tokens)
    return read


def calls_made(results, name: str = "accounting.csv") -> dict:
    """{accounting table: calls} of every run folder under `results`."""
    return {str(path): int(pd.read_csv(path).set_index("stage").loc["total", "calls"])
            for path in results.glob(f"*/*/{name}")}


@pytest.mark.slow  # after the llama-server build beside the quick tests: the embedder's torch threads wait on it
@pytest.mark.parametrize("name", RUNNABLE)
def test_the_plan_counts_the_run_on_the_fake_model_and_a_rerun_and_a_replay_make_no_call(name, tmp_path,
                                                                                         monkeypatch,
                                                                                         shared_embeddings):
    """The experiment's own run function in this process (its notebook calls the same), as the smoke profile
    sizes it: plan = run per (gateway stage, model), then a warm rerun and a replay (what a rescore runs under)
    with 0 calls."""
    experiment = get(name)
    nb = NOTEBOOKS / f"{experiment.notebook_stem}.ipynb"
    params = fake_parameters(nb)
    # The fan-outs the fake has: its lists' length (claims per text, facts per list), and a passage's candidates
    # asked again as often as allowed and never probed (its questions never end in "?", so every candidate fails
    # the question check): given them, the plan is exact. (The probes' plan = run: test_qa_candidates.py.)
    monkeypatch.setattr(priors, "COUNTS", dict.fromkeys(priors.COUNTS, ARRAY_LENGTH) | {
        "asked again per pair": MAX_ASKS - 1, "round trips per passage": 0, "closed-book probes per passage": 0})
    planned = planned_calls(nb, params)
    tokens = planned_prompt_tokens(nb, params)
    p = declared(experiment.parameters, notebook_defaults(nb) | params)
    experiment.run(p)
    assert_plan_counted_the_run(planned, tmp_path, exact=True)
    read = prompt_tokens_read(tmp_path / "results")
    assert {key: read.get(key) for key in tokens} == tokens  # where the plan built every prompt: to the token
    assert_every_answer_prompt_was_written_before_its_call(tmp_path / "results")
    pages, framed = assert_every_item_page_shows_the_prompt_sent(tmp_path / "results")
    assert pages > 0 or name not in ARMS_ON_PAGES
    assert framed > 0 or name not in PASSAGES_FRAMED
    experiment.run(p)
    assert set(calls_made(tmp_path / "results").values()) == {0}
    manifests = {path: json.loads(path.read_text()) for path in (tmp_path / "results").glob("*/*/manifest.json")}
    index = (tmp_path / "results" / "index.csv").read_text()
    monkeypatch.setenv(REPLAY_ENV, "1")  # every item redone from the cache, none resumed, no call allowed
    experiment.run(p)
    assert set(calls_made(tmp_path / "results", "rescore_accounting.csv").values()) == {0}
    for path, run in manifests.items():  # a rescore keeps the run's record, and records itself beside it
        after = json.loads(path.read_text())
        assert {k: after[k] for k in ("started", "ended", "wall_s", "accounting")} == {
            k: run[k] for k in ("started", "ended", "wall_s", "accounting")}
        assert [r["calls"] for r in after["rescores"]] == [0]
    assert (tmp_path / "results" / "index.csv").read_text() == index
    assert ANSWERER in json.dumps(list(manifests.values()))


@pytest.mark.slow  # after the llama-server build, as the test above
def test_a_warm_run_fails_a_plan_one_request_short_though_it_makes_no_call(tmp_path, monkeypatch, shared_embeddings):
    """The real model's smoke notebooks usually run warm (the kept cache: no call at all), so plan = run is checked
    on requests counted by key, made or cached (#91): a run into a new folder with every reply cached makes no
    call, and a plan one request short of a stage's distinct requests still fails."""
    experiment = get("depth_sweep")
    nb = NOTEBOOKS / f"{experiment.notebook_stem}.ipynb"
    params = fake_parameters(nb)
    planned = planned_calls(nb, params)
    p = declared(experiment.parameters, notebook_defaults(nb) | params)
    experiment.run(p)  # cold: every reply into the model cache
    warm = tmp_path / "warm"  # a session of its own: the same cache, a new output folder
    monkeypatch.setattr(paths, "RESULTS", warm / "results")
    monkeypatch.setattr(paths, "FIGURES", warm / "figures")
    experiment.run(p)
    assert set(calls_made(warm / "results").values()) == {0}
    assert_plan_counted_the_run(planned, warm)
    made = requests_made(warm)
    every_one_distinct = [key for key, n in planned.items() if made.get(key) == [n, n]]
    assert every_one_distinct, (planned, made)
    (table,) = [pd.read_csv(path).set_index("stage") for path in (warm / "results").glob("*/*/accounting.csv")]
    for key in every_one_distinct:
        short = {**planned, key: planned[key] - 1}
        # what the check read before, calls <= planned <= calls + hits, lets it through: 0 <= n - 1 <= n
        assert table.loc[key[0], "calls"] == 0 and table.loc[key[0], "cache_hits"] >= short[key]
        with pytest.raises(AssertionError, match=rf"planned {short[key]}, asked {planned[key]}"):
            assert_plan_counted_the_run(short, warm)


@pytest.mark.slow  # after the llama-server build, as the test above
def test_every_synthetic_task_writes_its_tables_on_the_fake_model(tmp_path):
    """09's tables for all seven tasks at the smoke profile's sizes: what the lab does with the replies (scores,
    unanswerable haystacks, closed-book arm, association gap) is plumbing; the real model's smoke run asks three
    of the tasks (test_notebooks.py)."""
    experiment = get("synthetic")
    nb = NOTEBOOKS / f"{experiment.notebook_stem}.ipynb"
    experiment.run(declared(experiment.parameters, notebook_defaults(nb) | fake_parameters(nb) | {
        "tasks": SYNTHETIC_TASKS}))
    (out,) = (tmp_path / "results" / "synthetic").glob("*/items.jsonl")
    assert_synthetic_tables(out.parent, SYNTHETIC_TASKS)
