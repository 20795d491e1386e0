"""The explorer and the labelling desk, in a real browser (Debian's Chromium driven by Playwright), against a real
01 run executed by papermill on the deterministic fake model (what is tested is the explorer, not the model's
answers; 01 on the real 0.5B is test_notebooks.py's): filters change the item count, an item opens its reading
view at its answer passage and links back, an item page shows its exact prompt with the gold marked, a summary
cell opens its items; at the desk, its dead ends, ten labels typed on the keyboard land in the label file under
the right keys, show in the items table at once, and the rescored run's reliability card reads them. And the
server: loopback only, no file outside what it serves, no credential on any page."""

import os
import re
import shutil
import sqlite3
import time
from pathlib import Path

import httpx
import pandas as pd
import pytest
from lclab.runs.notebooks import NOTEBOOKS, execute, load_profile, parameters_for

from conftest import BROWSER_SKIP, start_explorer

pytestmark = pytest.mark.slow
BUSY_PROCESSES = 2
CANARY = "sk-canary-explorer-4f1c9e"


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium: ./run_tests.sh installs it beside the quick tests (scripts/browser.sh); wait for that."""
    pid_file = os.environ.get("LCLAB_BROWSER_INSTALL")
    deadline = time.time() + 900
    while pid_file and Path(pid_file).exists() and time.time() < deadline:
        try:
            os.kill(int(Path(pid_file).read_text()), 0)
        except (ProcessLookupError, ValueError):
            break
        time.sleep(2)
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip(f"{BROWSER_SKIP} (scripts/browser.sh installs one where it can; .venv/browser-install.log)")
    return found


@pytest.fixture(scope="module")
def lab(tmp_path_factory, card_store, embedding_cache):
    """A finished 01 run (10 QA pairs at 2 depths in 1,200 tokens, prompts long enough to fold: 20 judged answers,
    10 distinct questions and so at least 10 distinct texts for 10 labels), answered and judged by the fake model,
    and its explorer, served on loopback."""
    out = tmp_path_factory.mktemp("explore")
    labels = out / "labels"
    labels.mkdir()
    env = {"LCLAB_OUTPUT_DIR": str(out), "LCLAB_CACHE_DIR": str(out / "llm"), "LCLAB_CARD_DIR": str(card_store),
           "LCLAB_EMBEDDING_CACHE_DIR": str(embedding_cache), "LCLAB_LABEL_DIR": str(labels)}
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        nb = NOTEBOOKS / "01_lost_in_the_middle.ipynb"
        params = parameters_for(nb, load_profile("smoke")) | {"n_qa": 10, "depths": [0, 100],
                                                                  "context_tokens": [1200], "closed_book": False,
                                                                  "model": "fake/answerer",
                                                                  "judge_model": "fake/judge"}
        execute(nb, params, out / "executed" / nb.name)
    finally:
        for k, v in saved.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    server, base = start_explorer(env | {"OPENAI_API_KEY": CANARY})
    yield {"base": base, "out": out, "labels": labels, "run": out / "results" / "depth_sweep" / "smoke", "env": env}
    server.terminate()
    server.wait(timeout=30)


def test_the_store_holds_every_item_with_its_prompt_reply_axes_and_scores(lab):
    with sqlite3.connect(lab["out"] / "results" / "lab.sqlite") as db:
        items = pd.read_sql("select * from depth_sweep__items", db)
        summaries = pd.read_sql("select * from summaries", db)
    logged = pd.read_json(lab["run"] / "items.jsonl", lines=True)
    assert len(items) == len(logged) == 20
    assert items["prompt"].str.contains("Answer the question").all()  # the exact prompt each item sent
    assert set(items["depth"]) == {0, 100} and items["cluster"].nunique() == 10
    assert (items["reply"] == logged["response"]).all()
    assert items["verdict_p"].between(0, 1).all()  # the judge's probability beside its verdict
    assert set(items["judge_vs_match"].dropna()) <= {"agree", "disagree"}
    assert summaries["items"].str.contains("depth=100").any()


def test_filters_an_item_page_and_a_summary_cell_in_a_real_browser(lab, chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(f"{lab['base']}/lab/depth_sweep__items")
        assert "20 rows" in page.locator("h3").first.inner_text()
        page.click("#facet-depth a:has-text('100')")
        assert "10 rows" in page.locator("h3").first.inner_text()  # a facet narrows the items
        listed = page.url
        page.click("a[href^='/-/item']")  # an item id opens its reading view, at its answer passage
        assert "/-/item?" in page.url and "01 lost in the middle (depth_sweep)" in page.content()
        passage = page.locator("#answer")
        assert passage.count() == 1 and passage.is_visible()
        box, height = passage.bounding_box(), page.evaluate("window.innerHeight")
        assert box["y"] < height and box["y"] + box["height"] > 0  # opened where the passage is
        page.click("a:has-text('back to the list')")
        assert page.url == listed

        page.goto(f"{lab['base']}/lab/summaries")  # a summary number -> the items behind it, one click
        page.click("a[href*='depth=100']")
        assert "10 rows" in page.locator("h3").first.inner_text() and "depth" in page.url

        page.goto(f"{lab['base']}/lab/depth_sweep__items/1")
        prompt = page.locator(".lclab-prompt").first
        assert "Answer the question" in prompt.inner_text()
        gold = pd.read_json(lab["run"] / "items.jsonl", lines=True)["gold"]
        assert page.locator(".lclab-prompt mark").count() >= 1  # the gold answer marked where the prompt holds it
        assert page.locator(".lclab-prompt mark").first.inner_text().lower() in {g.lower() for g in gold}
        browser.close()


def test_a_list_shows_each_items_verdict_and_scores_within_1400_px_and_folds_stay_open(lab, chromium):
    """An item list at 1,400 px: the verdict, its probability, the string match, the label and every yes/no score
    of the run's items log lie within the window, each row a few lines; an item's reading view opens with its
    verdict table on screen and the passage in view; folds of a prompt open one by one and stay open."""
    from playwright.sync_api import sync_playwright

    from lclab.experiments import get

    logged = pd.read_json(lab["run"] / "items.jsonl", lines=True)
    shown_as_verdict = get("depth_sweep").series.value  # the list's `verdict` column is this one
    scores = [c for c in logged if logged[c].dropna().map(lambda v: isinstance(v, bool)).all()
              and logged[c].notna().any() and not c.endswith("_cached") and c != shown_as_verdict]
    assert "string_match" in scores
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(f"{lab['base']}/lab/depth_sweep__items")
        right = page.evaluate("""() => Object.fromEntries(Array.from(
            document.querySelectorAll("table.rows-and-columns thead th")).map(th =>
            [th.dataset.column || th.innerText.trim(), th.getBoundingClientRect().right]))""")
        for column in ["verdict", "verdict_p", "label", "judge_vs_label", *scores]:
            assert column in right and right[column] <= 1400, (column, right.get(column))
        rows = page.evaluate("""() => Array.from(document.querySelectorAll("table.rows-and-columns tbody tr")).map(
            r => r.getBoundingClientRect().height)""")
        assert len(rows) == 20 and max(rows) < 120, rows  # a few lines each, not the whole prompt
        page.click("a[href^='/-/item']")
        verdicts = page.locator("table.reading").bounding_box()
        assert verdicts["y"] >= 0, verdicts  # the verdict table on screen, not scrolled past
        answer, height = page.locator("#answer").bounding_box(), page.evaluate("window.innerHeight")
        assert answer["y"] < height and answer["y"] + answer["height"] > 0
        folds = page.locator(".lclab-unfold")
        for i in range(folds.count()):
            folds.nth(i).click()
        page.locator("h1").first.click()  # a click elsewhere on the page (Datasette's menus close on one)
        assert folds.count() >= 1 and page.locator(".lclab-folded[hidden]").count() == 0
        assert all(folds.nth(i).get_attribute("aria-expanded") == "true" for i in range(folds.count()))
        browser.close()


def test_ten_labels_typed_at_the_desk_land_in_the_label_file_and_the_card_reads_them(lab, chromium, monkeypatch):
    from lclab.runs.rescore import rescore
    from lclab.scoring import labels as label_files
    from lclab.scoring.labelling import sheet
    from playwright.sync_api import sync_playwright

    desk = f"{lab['base']}/-/desk?run=depth_sweep/smoke&kind=answer_correct&n=20"
    typed = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        # The desk's dead ends, as a new user meets them: a kind no card of the run reads, a second labeller before
        # the first has labelled: a page saying why, with a way on (not a bare 400 or a traceback).
        refused = page.goto(f"{lab['base']}/-/desk?run=depth_sweep/smoke&kind=rag_relevance")
        assert refused.status == 400 and "no card of this run reads kind" in page.content()
        assert page.locator("#problem a").count() >= 1 and page.locator("form[action='/-/desk']").count() == 1
        second = page.goto(f"{desk}&second=1")
        assert second.status == 400 and "label some first" in page.content()
        page.goto(desk)
        assert "1: correct" in page.content() and "0: wrong" in page.content()  # what each key means for the kind
        assert re.search(r"±0\.10 (needs about \d+ labels|is out of reach for this run)",
                         page.locator("#progress").inner_text())
        for i in range(10):
            key = page.locator("#item").get_attribute("data-key")
            assert "judge" not in page.locator("#item").inner_text().lower()  # blind: no verdict on the page
            if i == 3:
                page.keyboard.press("n")
                page.keyboard.type("short but right")
                page.keyboard.press("Escape")
            label = "1" if i % 3 else "0"
            with page.expect_navigation():  # the label is posted, and the desk shows the next text
                page.keyboard.press(label)
            typed.append((key, int(label)))
        assert "10 of" in page.locator("#progress").inner_text()
        # The labels are in the items table at once, with no restart of the explorer.
        page.goto(f"{lab['base']}/lab/depth_sweep__items?label__notblank=1")
        shown = int(re.search(r"(\d+) rows?", page.locator("h3").first.inner_text()).group(1))
        assert shown >= 10  # every row whose text was labelled (a text can be two items' reply)
        page.goto(desk)
        for _ in range(40):  # on to the end: the desk says it is done and where to go
            if page.locator("#done").count():
                break
            with page.expect_navigation():
                page.keyboard.press("1")
        assert page.locator("#done").count() == 1 and "lclab.runs.rescore" in page.content()
        onwards = page.locator("#onwards a")
        assert onwards.count() >= 3
        page.click("#onwards a:has-text(\"this run's items\")")
        assert "/lab/depth_sweep__items" in page.url and "rows" in page.locator("h3").first.inner_text()
        browser.close()
    typed_count = len(pd.read_csv(lab["labels"] / "answer_correct.csv"))
    written = pd.read_csv(lab["labels"] / "answer_correct.csv", dtype={"key": str}).head(10)
    assert list(zip(written["key"], written["label"])) == typed and typed_count >= 10
    assert written.loc[3, "note"] == "short but right"
    monkeypatch.setattr(label_files, "LABELS", lab["labels"])
    expected = sheet("answer_correct", lab["run"], include_labelled=True).set_index("key")
    assert set(written["key"]) <= set(expected.index)  # filed under the texts' own keys

    for k, v in lab["env"].items():
        monkeypatch.setenv(k, v)
    assert rescore(lab["run"])["calls"] == 0
    card = pd.read_csv(lab["run"] / "reliability.csv")
    assert (card["n_labelled"] == typed_count).any()


def test_at_the_desk_a_double_press_files_once_u_undoes_and_a_second_labeller_is_counted_with_kappa(lab, chromium):
    """After the first labeller (the test above, or four labels here): two keys pressed at once file one label, u
    takes it back, and the second labeller's mode draws n of the run's labelled texts, counts each label it is
    given and reports the two labellers' κ (or says why there is none)."""
    from playwright.sync_api import sync_playwright

    first_file = lab["labels"] / "answer_correct.csv"
    second_file = lab["labels"] / "second_labeller" / "answer_correct.csv"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(f"{lab['base']}/-/desk")
        assert page.locator("#run option[value='depth_sweep/smoke']").count() == 1
        for i in range(4 - (len(pd.read_csv(first_file)) if first_file.exists() else 0)):
            page.goto(f"{lab['base']}/-/desk?run=depth_sweep/smoke&kind=answer_correct&n=20")
            with page.expect_navigation():
                page.keyboard.press(str(i % 2))
        first = pd.read_csv(first_file, dtype={"key": str}).set_index("key")["label"]
        page.goto(f"{lab['base']}/-/desk?run=depth_sweep/smoke&kind=answer_correct&n=5&second=1")
        assert "0 of 5 drawn texts labelled" in page.locator("#progress").inner_text()
        assert "No κ of the two labellers yet" in page.locator("#kappa").inner_text()
        key = page.locator("#item").get_attribute("data-key")
        with page.expect_navigation():  # two keys at once, both reaching this page before it goes
            page.evaluate("""() => ['1', '0'].forEach(key =>
                document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true})))""")
        assert pd.read_csv(second_file, dtype={"key": str})[["key", "label"]].values.tolist() == [[key, 1]]
        with page.expect_navigation():
            page.keyboard.press("u")
        assert "Undone" in page.locator("#notice").inner_text() and pd.read_csv(second_file).empty
        for i in range(5):
            key = page.locator("#item").get_attribute("data-key")
            assert key in first.index  # a text of this run the first labeller labelled
            with page.expect_navigation():
                page.keyboard.press(str(first[key]))
            assert f"{i + 1} of 5 drawn texts labelled" in page.locator("#progress").inner_text()
        kappa = page.locator("#kappa").inner_text()
        both = first[pd.read_csv(second_file, dtype={"key": str})["key"]]
        if both.nunique() == 2:
            assert "κ on this run's 5 texts both labelled: 1.00" in kappa, kappa
        else:
            assert "κ is undefined until each has used both labels" in kappa, kappa
        browser.close()


def test_the_server_answers_only_loopback_serves_no_other_file_and_shows_no_credential(lab):
    base = lab["base"]
    assert httpx.get(f"{base}/lab", headers={"Host": "attacker.example"}).status_code == 403
    for path in ("/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/-/static/..%2f..%2f..%2fetc%2fpasswd",
                 "/-/static-plugins/lclab-explore/..%2f..%2fstore.py", "/lab/..%2f..%2fmanifest.json"):
        got = httpx.get(base + path)
        assert "root:" not in got.text and "def build" not in got.text, path
    assert httpx.get(f"{base}/-/desk?run=../../etc&kind=answer_correct").status_code == 400
    for path in ("/", "/lab", "/lab/items.json?_shape=array", "/-/versions", "/-/settings", "/-/metadata",
                 "/-/plugins", "/-/desk", "/-/desk?run=depth_sweep/smoke&kind=answer_correct"):
        assert CANARY not in httpx.get(base + path).text, path
    from lclab.explore.server import loopback_only

    seen = []

    async def app(scope, receive, send):
        seen.append(scope)

    async def send(message):
        seen.append(message)

    import asyncio

    asyncio.run(loopback_only(app)({"type": "http", "client": ("10.1.2.3", 5000), "headers": [(b"host", b"127.0.0.1")]},
                                   None, send))
    assert seen[0]["status"] == 403


def test_the_store_is_rebuilt_from_the_run_folders_alone(lab, tmp_path):
    from lclab.explore.store import build

    again = build(tmp_path / "copy.sqlite", lab["out"] / "results")
    with sqlite3.connect(again) as db, sqlite3.connect(lab["out"] / "results" / "lab.sqlite") as first:
        assert db.execute("select count(*) from items").fetchone() == first.execute(
            "select count(*) from items").fetchone()
    assert Path(lab["run"] / "items.jsonl").exists()  # the run folder is still the record
