"""An item's prompt is rebuilt from the run's samples file and its hash checked against the one the row recorded
(07, answered by the fake model); a log several runs write keeps each run's samples. A manifest on the real 0.5B
(01 rebuilt from its parameters, the index listing the run) is read from 01's smoke run:
test_notebooks.assert_the_run_is_recorded."""

import json

from lclab.models import prompt_sha256
from lclab.rag_ifeval import Options, load_documents, load_samples, run_models
from lclab.runs.manifest import rebuild_prompt


def test_rag_ifeval_prompts_rebuild_exactly_with_a_shuffled_context(tmp_path):
    # What is read back is the samples file, not the replies: the deterministic fake model answers.
    result = run_models(["fake/answerer"], run_name="m", n_samples=2, shuffle_context=True, max_tokens=8)
    rows = result.data["rows"]
    # Read back from the samples file written before the calls, which holds each exact prompt and its order.
    assert all(prompt_sha256(rebuild_prompt(result.dir, r)) == r["prompt_sha256"] for r in rows)
    written = [json.loads(line) for line in (result.dir / "answerer.samples.jsonl").read_text().splitlines()]
    assert [w["metadata"]["context"] for w in written] == [r["context"] for r in rows]
    options = Options().resolved()
    listed = {s.id: list(s.context) for s in load_samples(options.eval_path, load_documents(options.docs_path))}
    assert any(r["context"] != listed[r["id"]] for r in rows)  # shuffled: the prompts are not the file's order
    assert json.loads((result.dir / "manifest.json").read_text())["parameters"]["shuffle_context"] is True


def test_a_log_that_several_runs_write_keeps_every_runs_samples(tmp_path):
    """05 runs one log per config: the second config's samples do not replace the first's (their prompts are what
    the prompts log names as the sample's input); a trial written again replaces its own line only."""
    from lclab.runs.folders import ItemLog
    from lclab.runs.samples import Sample, samples_path, write_samples

    log = ItemLog(tmp_path / "items.jsonl", ["config", "id"])

    def write(config, trials):
        write_samples(trials, log, key=lambda t: (config, t.id), describe=lambda t: {})

    write("a", [Sample("x", "prompt a-x"), Sample("y", "prompt a-y")])
    write("b", [Sample("x", "prompt b-x")])
    write("a", [Sample("x", "prompt a-x, again")])
    lines = [json.loads(line) for line in samples_path(log).read_text().splitlines()]
    assert sorted((line["key"]["config"], line["input"]) for line in lines) == [
        ("a", "prompt a-x, again"), ("a", "prompt a-y"), ("b", "prompt b-x")]


def test_a_rescore_keeps_the_runs_commit_and_tree_state_and_records_its_own_under_rescores(tmp_path, monkeypatch):
    """The run's manifest says which code made its predictions; a rescore (scored with other code, perhaps a dirty
    tree) records its own commit and state in its `rescores` entry instead of overwriting the run's."""
    import datetime

    import pandas as pd
    from lclab.models.replay import REPLAY_ENV
    from lclab.runs import manifest

    accounting = pd.DataFrame([{"stage": "total", "calls": 3, "cache_hits": 0, "seconds": 1.0}])
    started = datetime.datetime(2026, 11, 26, 12, 0)
    runs = iter([{"commit": "a" * 40, "dirty": False, "packages": {"pandas": "2.0"}},
                 {"commit": "b" * 40, "dirty": True, "packages": {"pandas": "2.1"}}])
    monkeypatch.setattr(manifest, "environment", lambda: {**next(runs), "python": "3.11", "machine": {}})
    invocation = manifest.Invocation(tmp_path, "depth_sweep", "r", {"model": "fake/answerer"}, started)
    manifest.write(invocation, accounting, "ok", None, 1)
    monkeypatch.setenv(REPLAY_ENV, "1")
    again = manifest.write(invocation, accounting.assign(calls=0, cache_hits=3), "ok", None, 1)
    assert (again["commit"], again["dirty"], again["packages"]) == ("a" * 40, False, {"pandas": "2.0"})
    (event,) = again["rescores"]
    assert (event["commit"], event["dirty"], event["packages"], event["calls"]) == ("b" * 40, True,
                                                                                     {"pandas": "2.1"}, 0)
    assert json.loads((tmp_path / "manifest.json").read_text())["rescores"][0]["dirty"] is True
