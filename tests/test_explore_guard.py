"""The explorer's guard and its error pages, in-process on a run folder written here (no model): a label posted
from another site is refused and writes nothing, while the same post from the desk's own page is filed; a bad
URL or body gets a short page with the right status, never a 500 or a traceback."""

import asyncio
import html
import json
import re

import httpx
import pandas as pd
import pytest

RUN = "depth_sweep/t"
ITEMS = [{"fingerprint": f"f{i}", "question": f"What is item {i}?", "gold": f"answer {i}", "response": f"reply {i}",
          "qa_id": i, "judge_correct": bool(i % 2) if i < 4 else None, "judge_correct_p": 0.3 + 0.1 * i}
         for i in range(5)]  # the fifth has no verdict (its judge reply did not parse): no card counts it
SAMPLES = [{"key": {"fingerprint": f"f{i}"}, "id": f"item-{i}", "input": f"Read this. What is item {i}?",
            "target": f"answer {i}"} for i in range(5)]


@pytest.fixture
def explorer(tmp_path, monkeypatch):
    """The explorer's ASGI app over one run folder of four judged items, with an empty label folder."""
    from lclab import paths
    from lclab.explore.server import app
    from lclab.explore.store import build
    from lclab.scoring import labellers
    from lclab.scoring import labels as label_files

    run = tmp_path / "results" / RUN
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"experiment": "depth_sweep", "run_name": "t"}))
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ITEMS))
    (run / "items.samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in SAMPLES))
    labels = tmp_path / "labels"
    labels.mkdir()
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(label_files, "LABELS", labels)
    monkeypatch.setattr(labellers, "SECOND", labels / "second_labeller")
    return {"app": app(build(tmp_path / "results" / "lab.sqlite", tmp_path / "results")), "labels": labels}


def call(asgi, method: str, path: str, client=("127.0.0.1", 50000), **kwargs) -> httpx.Response:
    async def go():
        transport = httpx.ASGITransport(app=asgi, client=client)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
            return await http.request(method, path, **kwargs)
    return asyncio.run(go())


def desk_form(asgi) -> tuple[dict, str]:
    """The desk's own form for the run's first text: its fields and the CSRF cookie the page set."""
    page = call(asgi, "GET", f"/-/desk?run={RUN}&kind=answer_correct&n=4")
    assert page.status_code == 200, page.text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
    key = re.search(r'data-key="([0-9a-f]{12})"', page.text).group(1)
    return fields | {"key": key, "label": "1"}, page.cookies["ds_csrftoken"]


def test_a_label_posted_from_another_site_is_refused_and_the_desks_own_post_is_filed(explorer):
    asgi, label_file = explorer["app"], explorer["labels"] / "answer_correct.csv"
    form, cookie = desk_form(asgi)
    attacks = [  # a cross-site form POST: the browser names the foreign page and leaves out the Lax cookie
        {"headers": {"Origin": "https://evil.example"}},
        {"headers": {"Referer": "https://evil.example/page"}},
        {"headers": {}},  # names no origin at all
        {"headers": {"Origin": "http://127.0.0.1:8765"}},  # the right origin but no CSRF cookie (asgi-csrf skips)
        {"headers": {"Origin": "https://evil.example", "Cookie": f"ds_csrftoken={cookie}"}},
        {"headers": {"Origin": "http://localhost:8765", "Cookie": f"ds_csrftoken={cookie}"}},  # another origin
    ]
    for attack in attacks:
        got = call(asgi, "POST", "/-/desk/label", data=form, **attack)
        assert got.status_code == 403, (attack, got.status_code, got.text)
        assert not label_file.exists(), attack
    wrong_token = call(asgi, "POST", "/-/desk/label", data=form | {"csrftoken": "x" * len(form["csrftoken"])},
                       headers={"Origin": "http://127.0.0.1:8765", "Cookie": f"ds_csrftoken={cookie}"})
    assert wrong_token.status_code == 403 and not label_file.exists()

    own = call(asgi, "POST", "/-/desk/label", data=form,
               headers={"Origin": "http://127.0.0.1:8765", "Cookie": f"ds_csrftoken={cookie}"})
    assert own.status_code == 302, own.text
    written = pd.read_csv(label_file, dtype={"key": str})
    assert list(written["key"]) == [form["key"]] and list(written["label"]) == [1]
    shown = call(asgi, "GET", "/lab/items.json?_shape=array&label__notblank=1").json()
    assert [(r["label_key"], r["label"]) for r in shown] == [(form["key"], 1)]  # seen at once, no restart
    assert shown[0]["judge_vs_label"] == ("agree" if shown[0]["verdict"] else "disagree")
    form, cookie = desk_form(asgi)
    referer_only = call(asgi, "POST", "/-/desk/label", data=form,
                        headers={"Referer": "http://127.0.0.1:8765/-/desk", "Cookie": f"ds_csrftoken={cookie}"})
    assert referer_only.status_code == 302  # a browser that sends no Origin still names the page in Referer
    assert call(asgi, "GET", "/lab", client=("10.0.0.7", 50000)).status_code == 403


def raw(asgi, method: str, path: bytes, headers=(), body=b"") -> tuple[int, bytes]:
    """One request exactly as written (an HTTP client would tidy `/../x` away before sending it)."""
    scope = {"type": "http", "method": method, "path": path.decode("latin-1"), "raw_path": path,
             "query_string": b"", "headers": [(b"host", b"127.0.0.1:8765"), *headers], "client": ("127.0.0.1", 5),
             "server": ("127.0.0.1", 8765), "scheme": "http", "http_version": "1.1", "root_path": ""}
    sent, got = [], {"status": None, "body": b""}

    async def receive():
        if sent:
            return {"type": "http.disconnect"}
        sent.append(1)
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            got["status"] = message["status"]
        elif message["type"] == "http.response.body":
            got["body"] += message.get("body", b"")

    asyncio.run(asgi(scope, receive, send))
    return got["status"], got["body"]


def test_a_bad_url_or_body_gets_a_short_page_with_its_status_and_one_log_line(explorer, capfd):
    asgi = explorer["app"]
    for path in (b"/../x", b"/./x", b"//x", b"/-/static-plugins/lclab-explore/x.css", b"/lab/no_such_table",
                 b"/no/such/page"):
        status, body = raw(asgi, "GET", path)
        assert status == 404, (path, status, body[:300])
        assert b"Traceback" not in body and len(body) < 2_000
    err = capfd.readouterr().err
    assert "Traceback" not in err and "locals" not in err.lower()
    assert len([line for line in err.splitlines() if line.startswith("explore: 404")]) == 6, err

    form, cookie = desk_form(asgi)
    own = [(b"origin", b"http://127.0.0.1:8765"), (b"cookie", f"ds_csrftoken={cookie}".encode()),
           (b"content-type", b"application/x-www-form-urlencoded")]
    status, body = raw(asgi, "POST", b"/-/desk/label", own, b"csrftoken=" + form["csrftoken"].encode()
                       + b"&run=depth_sweep%2Ft&kind=answer_correct&key=\xff\xfe&label=1")
    assert status == 400 and b"not UTF-8" in body, (status, body[:300])
    for query in ("run=depth_sweep/t&kind=answer_correct&second=1", "run=nowhere/x&kind=answer_correct",
                  "run=depth_sweep/t&kind=no_such_kind", "run=depth_sweep/t&kind=answer_correct&n=abc"):
        page = call(asgi, "GET", f"/-/desk?{query}")
        assert page.status_code == 400 and 'id="problem"' in page.text, (query, page.status_code, page.text[:300])
        assert 'action="/-/desk"' in page.text  # the desk's own start page, to go on from
    assert "label some first" in call(asgi, "GET", f"/-/desk?run={RUN}&kind=answer_correct&second=1").text
    assert not (explorer["labels"] / "answer_correct.csv").exists()
    assert "Traceback" not in capfd.readouterr().err


def test_the_desk_draws_only_judged_texts_names_its_labels_and_says_where_to_go_when_done(explorer):
    asgi = explorer["app"]
    page = call(asgi, "GET", f"/-/desk?run={RUN}&kind=answer_correct&n=30").text
    assert "0 of 4 drawn texts labelled" in page  # the text without a verdict is not drawn
    assert "1: correct" in page and "0: wrong" in page
    assert "out of reach for this run: its 4 judged texts" in page  # not a line that disappears
    refused = call(asgi, "GET", f"/-/desk?run={RUN}&kind=rag_relevance")
    assert refused.status_code == 400 and "no card of this run reads kind" in refused.text
    for _ in range(4):
        form, cookie = desk_form(asgi)
        posted = call(asgi, "POST", "/-/desk/label", data=form | {"n": "30"},
                      headers={"Origin": "http://127.0.0.1:8765", "Cookie": f"ds_csrftoken={cookie}"})
        assert posted.status_code == 302
    done = call(asgi, "GET", f"/-/desk?run={RUN}&kind=answer_correct&n=30").text
    assert 'id="done"' in done and "lclab.runs.rescore results/depth_sweep/t" in done
    assert 'href="/-/desk"' in done and "/lab/depth_sweep__items?run=depth_sweep/t" in done


def words(text: str) -> str:
    """A page's text as read: entities decoded, white space as single spaces."""
    return re.sub(r"\s+", " ", html.unescape(text))


def post(asgi, form: dict, cookie: str) -> httpx.Response:
    return call(asgi, "POST", "/-/desk/label", data=form,
                headers={"Origin": "http://127.0.0.1:8765", "Cookie": f"ds_csrftoken={cookie}"})


def test_the_desks_dead_ends_say_why_and_a_double_press_and_an_undo_are_harmless(explorer, tmp_path):
    """A new user's way through the desk: a run with nothing to label is not offered (and says so when asked for),
    a bad n is said in words, no page shows a path of this machine or Python's error text; a label posted twice is
    filed once, and an undo takes the last label back (from the label file and the item tables)."""
    asgi, label_file = explorer["app"], explorer["labels"] / "answer_correct.csv"
    synthetic = tmp_path / "results" / "synthetic" / "s"  # items with no judge verdict: nothing to label
    synthetic.mkdir(parents=True)
    (synthetic / "manifest.json").write_text(json.dumps({"experiment": "synthetic", "run_name": "s"}))
    (synthetic / "items.jsonl").write_text(json.dumps({"task": "niah", "response": "x", "score": 1.0}) + "\n")
    start = call(asgi, "GET", "/-/desk").text
    assert 'value="depth_sweep/t"' in start and 'value="synthetic/s"' not in start
    assert re.search(r'id="nothing-to-label"[^<]*synthetic/s', start)  # said, not silently left out
    for query, said in (("run=synthetic/s&kind=answer_correct", "has nothing to label"),
                        ("run=synthetic/s&kind=rag_relevance", "has nothing to label"),
                        (f"run={RUN}&kind=answer_correct&n=abc", "a whole number of at least 1, not 'abc'"),
                        (f"run={RUN}&kind=answer_correct&n=0", "a whole number of at least 1, not '0'"),
                        ("run=nowhere/x&kind=answer_correct", "there is no run")):
        page = call(asgi, "GET", f"/-/desk?{query}")
        text = html.unescape(page.text)
        assert page.status_code == 400 and said in text, (query, text[-1500:])
        assert str(tmp_path) not in text and "/tmp" not in text and "invalid literal" not in text
    assert f"/-/desk?run={RUN}&amp;kind=answer_correct" in call(
        asgi, "GET", f"/-/desk?run={RUN}&kind=rag_relevance").text  # the kind this run has, one click on
    assert str(tmp_path) not in call(asgi, "GET", f"/-/desk?run={RUN}&kind=answer_correct").text

    form, cookie = desk_form(asgi)
    first, again = post(asgi, form, cookie), post(asgi, form | {"label": "0"}, cookie)  # a double key press
    assert first.status_code == again.status_code == 302
    assert "notice=again" in again.headers["location"]
    assert pd.read_csv(label_file, dtype={"key": str})[["key", "label"]].values.tolist() == [[form["key"], 1]]
    shown = call(asgi, "GET", f"/-/desk?run={RUN}&kind=answer_correct&n=4&last={form['key']}").text
    assert 'id="undo-form"' in shown and "labelled 1 (correct)" in shown
    undone = post(asgi, form | {"label": "undo"}, cookie)
    assert undone.status_code == 302 and "notice=undone" in undone.headers["location"]
    assert pd.read_csv(label_file, dtype={"key": str}).empty  # taken back from the label file
    assert call(asgi, "GET", "/lab/items.json?_shape=array&label__notblank=1").json() == []  # and the tables
    again_form, _ = desk_form(asgi)
    assert again_form["key"] == form["key"]  # the undone text is shown again
    skipped = post(asgi, form | {"label": "skip"}, cookie)
    assert skipped.status_code == 302 and desk_form(asgi)[0]["key"] != form["key"]
    assert post(asgi, form | {"label": "undo"}, cookie).status_code == 302
    assert desk_form(asgi)[0]["key"] == form["key"]  # a skip undone too


def test_the_second_labeller_draws_from_the_run_counts_its_labels_and_reports_kappa(explorer):
    """Second-labeller mode: the run's first-labelled texts (n of them), its count going up, and κ or why not."""
    asgi, labels = explorer["app"], explorer["labels"]
    for _ in range(4):
        form, cookie = desk_form(asgi)
        assert post(asgi, form | {"label": str(len(pd.read_csv(labels / "answer_correct.csv")) % 2)
                                  if (labels / "answer_correct.csv").exists() else "0"}, cookie).status_code == 302
    first = pd.read_csv(labels / "answer_correct.csv", dtype={"key": str}).set_index("key")["label"]
    second = f"/-/desk?run={RUN}&kind=answer_correct&n=3&second=1"
    page = words(call(asgi, "GET", second).text)
    assert "0 of 3 drawn texts labelled" in page  # n honoured
    assert "No κ of the two labellers yet: no drawn text of this run has both labellers" in page
    for i in range(3):
        page = call(asgi, "GET", second)
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
        key = re.search(r'data-key="([0-9a-f]{12})"', page.text).group(1)
        assert key in first.index  # a text the first labeller labelled, of this run
        assert post(asgi, fields | {"key": key, "label": str(first[key])},
                    page.cookies["ds_csrftoken"]).status_code == 302
        page = words(call(asgi, "GET", second).text)
        assert f"{i + 1} of 3 drawn texts labelled" in page  # the count goes up
    written = pd.read_csv(labels / "second_labeller" / "answer_correct.csv", dtype={"key": str})
    assert len(written) == 3 and (written["blind"] == "yes").all()
    agreeing = first[written["key"]]
    if agreeing.nunique() == 2:
        assert re.search(r"κ on this run's 3 texts both labelled: 1\.00", page), page
    else:
        assert "κ is undefined until each has used both labels" in page


def test_an_answerable_item_and_its_unanswerable_twin_take_separate_labels(tmp_path, monkeypatch):
    """02's twin items (same question, reference and reply; one with its answer passage cut out) have keys of their
    own: a label given at the desk (which shows the text's answerability and the rule) reads on the answerable
    item only, and a label filed for the twin reads on the twin only."""
    from lclab import paths
    from lclab.explore.server import app
    from lclab.explore.store import build
    from lclab.scoring import labellers
    from lclab.scoring import labels as label_files
    from lclab.scoring.labels import row_key

    run = tmp_path / "results" / "context_vs_rag" / "t"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"experiment": "context_vs_rag", "run_name": "t"}))
    texts = {"question": "Who bought Viaweb?", "gold": "Yahoo", "response": "It is not in the text."}
    rows = [{"fingerprint": "a", "qa_id": "q0", "noise_pct": 50, "method": "long_context", "answerable": True,
             "judge_correct": False, **texts},
            {"fingerprint": "u", "qa_id": "q0", "noise_pct": 50, "method": "long_context", "answerable": False,
             "abstained": 1.0, **texts}]  # unanswerable: the refusal rule scores it, no judge
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run / "items.samples.jsonl").write_text("".join(json.dumps({"key": {"fingerprint": f}, "id": f"q0:{f}",
                                                                 "input": "Question: Who bought Viaweb?"}) + "\n"
                                                     for f in "au"))
    labels = tmp_path / "labels"
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(label_files, "LABELS", labels)
    monkeypatch.setattr(labellers, "SECOND", labels / "second_labeller")
    asgi = app(build(tmp_path / "results" / "lab.sqlite", tmp_path / "results"))
    page = call(asgi, "GET", "/-/desk?run=context_vs_rag/t&kind=answer_correct")
    assert page.status_code == 200, page.text[-500:]
    assert re.search(r'id="answerable"><b>answerable:</b> yes', page.text) and 'id="rule"' in page.text
    assert "abstaining is right" in page.text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
    key = re.search(r'data-key="([0-9a-f]{12})"', page.text).group(1)
    assert post(asgi, fields | {"key": key, "label": "0"}, page.cookies["ds_csrftoken"]).status_code == 302

    def shown():
        got = call(asgi, "GET", "/lab/context_vs_rag__items.json?_shape=array&_col=answerable&_col=label").json()
        return {bool(r["answerable"]): r["label"] for r in got}
    assert shown() == {True: 0, False: None}  # the twin, where abstaining is right, does not read "wrong"
    twin = row_key({"question": texts["question"], "reference": texts["gold"], "response": texts["response"],
                    "answerable": False}, ("question", "reference", "response"))
    assert twin != key
    with open(labels / "answer_correct.csv", "a", encoding="utf-8") as fh:
        fh.write(f"{twin},1,{texts['question']},{texts['gold']},{texts['response']},abstains: right,hand\n")
    asgi = app(build(tmp_path / "results" / "lab.sqlite", tmp_path / "results"))
    assert shown() == {True: 0, False: 1}


def test_a_run_rescored_while_the_explorer_serves_is_read_again_without_a_restart(explorer):
    """A rescore rewrites the run's summary, manifest (its headline) and item log: the next page shows them."""
    asgi, run = explorer["app"], paths_results() / RUN
    assert call(asgi, "GET", "/lab/summaries.json?_shape=array").json() == []
    (run / "summary.csv").write_text("depth,corrected_acc,corrected_by\n50,0.75,the labels' own rate\n")
    manifest = json.loads((run / "manifest.json").read_text())
    (run / "manifest.json").write_text(json.dumps(manifest | {"headline": {
        "metric": "answer correct (the labels' own rate)", "value": 0.75, "lo": 0.5, "hi": 1.0}}))
    with open(run / "items.jsonl", "a") as fh:  # a rescored item: its latest row is the one
        fh.write(json.dumps(ITEMS[0] | {"judge_correct": True, "response": "reply 0, rescored"}) + "\n")
    rows = call(asgi, "GET", "/lab/summaries.json?_shape=array").json()
    assert [json.loads(r["row"])["corrected_acc"] for r in rows] == [0.75]
    (shown,) = call(asgi, "GET", "/lab/runs.json?_shape=array").json()
    assert shown["headline"] == "answer correct (the labels' own rate): 0.750 [0.500, 1.000]"
    replies = [r["reply"] for r in call(asgi, "GET", "/lab/items.json?_shape=array").json()]
    assert "reply 0, rescored" in replies and len(replies) == len(ITEMS)


def paths_results():
    from lclab import paths

    return paths.RESULTS
