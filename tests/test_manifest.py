"""Every run writes what made it; the index lists runs; an item's prompt is rebuilt from the manifest and its hash
checked against the one the row recorded (01 rebuilt from its parameters on the real 0.5B model at smoke size, 07
read from its samples file, answered by the fake model)."""

import json

import pytest
from conftest import SMOKE_CARD_TEXTS
from lclab.depth_sweep import run_depth_sweep
from lclab.depth_sweep.parameters import Parameters as SweepParameters
from lclab.models import prompt_sha256
from lclab.rag_ifeval import Options, load_documents, load_samples, run_models
from lclab.runs.index import run_index
from lclab.runs.manifest import read, rebuild_prompt

pytestmark = [pytest.mark.model]
SMALL = "local/qwen2.5-coder-0.5b"


def test_a_depth_sweep_writes_a_manifest_and_its_prompts_rebuild_exactly(shared_cards):
    # the smoke profile's card texts, from the session's card store: the judge's card is not what this test checks
    result = run_depth_sweep(SweepParameters(model=SMALL, judge_model=SMALL, n_qa=1, context_tokens=[400],
                                             depths=[0, 100], run_name="m", max_answer_tokens=8,
                                             card_texts=SMOKE_CARD_TEXTS))
    m = read(result.dir)
    assert m["status"] == "finished" and m["parameters"]["context_tokens"] == [400]
    assert m["models"]["model"]["identity"]["model_sha256"].startswith("1d9614638d18")
    assert "llama.cpp tokenizer" in m["models"]["model"]["tokenizer"] and m["seeds"] == {"seed": 0}
    assert m["packages"]["llama-cpp-python"] == "0.3.36" and m["machine"]["cores"] >= 1
    assert "judge_correct" in m["prompts"] and m["accounting"]["calls"] >= 2 and m["wall_s"] > 0
    # the headline is read by the judge's card: its corrected rate, or the string match where it cannot tell
    assert m["headline"]["metric"].startswith(("answer correct, all cells", "string match, all cells"))
    assert m["headline"]["judge"] == f"{SMALL} (self-judged)" and m["n_items"] == 2
    assert m["accounting_to_date"]["invocations"] == 1 and m["accounting_to_date"]["calls"] == m["accounting"]["calls"]
    for row in result.items.to_dict("records"):
        assert prompt_sha256(rebuild_prompt(result.dir, row)) == row["prompt_sha256"]
    index = run_index()
    assert index.loc[index["experiment"] == "depth_sweep", "run"].tolist() == ["m"]
    assert index.loc[index["experiment"] == "depth_sweep", "calls_to_date"].tolist() == [m["accounting"]["calls"]]


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
