"""After labelling, a rescore, and no restart: a new user labels every judged text of a 02 run at the desk (in
Chromium, on the fake model's run), rescores it (0 model calls), and the explorer that kept running shows the
headline and the summary rows that the labels imply, agreeing with each other and with the run's manifest."""

import json
import os
import re

import pandas as pd
import pytest
from lclab.runs.notebooks import NOTEBOOKS, execute, load_profile, parameters_for

from conftest import start_explorer
from test_explore import chromium  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory, card_store, embedding_cache):
    """02 at the smoke profile's sizes with 4 QA pairs (both arms, Self-Route, rag@1, unanswerable sets), answered
    and judged by the fake model, and the explorer serving it."""
    out = tmp_path_factory.mktemp("explore-rescore")
    (out / "labels").mkdir()
    env = {"LCLAB_OUTPUT_DIR": str(out), "LCLAB_CACHE_DIR": str(out / "llm"), "LCLAB_CARD_DIR": str(card_store),
           "LCLAB_EMBEDDING_CACHE_DIR": str(embedding_cache), "LCLAB_LABEL_DIR": str(out / "labels")}
    nb = NOTEBOOKS / "02_context_vs_rag.ipynb"
    params = parameters_for(nb, load_profile("smoke")) | {"n_qa": 4, "model": "fake/answerer",
                                                          "judge_model": "fake/judge", "embedder": "fake/words"}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        execute(nb, params, out / "executed" / nb.name)
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    server, base = start_explorer(env)
    yield {"base": base, "run": out / "results" / "context_vs_rag" / "smoke", "env": env}
    server.terminate()
    server.wait(timeout=30)


def test_after_labelling_every_judged_text_and_a_rescore_the_explorer_agrees_without_a_restart(
        served, chromium, monkeypatch):  # noqa: F811 (the fixture)
    from lclab.runs.rescore import rescore
    from playwright.sync_api import sync_playwright

    base, run = served["base"], served["run"]
    before = json.loads((run / "manifest.json").read_text())["headline"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(f"{base}/-/desk?run=context_vs_rag/smoke&kind=answer_correct&n=1000")
        assert "answerable:" in page.locator("#answerable").inner_text()
        for i in range(200):  # every judged text, the labels alternating whatever the judge said
            if page.locator("#done").count():
                break
            with page.expect_navigation():
                page.keyboard.press("1" if i % 3 else "0")
        assert page.locator("#done").count() == 1
        for k, v in served["env"].items():
            monkeypatch.setenv(k, v)
        assert rescore(run)["calls"] == 0
        after = json.loads((run / "manifest.json").read_text())["headline"]
        assert "this run's labels" in after["metric"] and after["metric"] != before["metric"]
        page.goto(f"{base}/lab/runs?run=context_vs_rag/smoke")  # the same explorer, not restarted
        shown = page.locator("td.col-headline").first.inner_text()
        assert shown.startswith(after["metric"]) and f"{after['value']:.3f}" in shown
        page.goto(f"{base}/lab/summaries.json?_shape=array&run=context_vs_rag/smoke")
        rows = pd.DataFrame([json.loads(r["row"]) for r in json.loads(page.locator("pre").inner_text())])
        assert (rows["corrected_by"] == "the labels' own rate").all(), rows["corrected_by"].tolist()
        top = rows[rows["noise_pct"] == rows["noise_pct"].max()].set_index("method")["corrected_acc"]
        assert after["value"] == pytest.approx(top["long_context"] - top["rag"])  # headline = summary rows
        assert re.search(r"\d+ labelled QA pairs", after["metric"])
        browser.close()
