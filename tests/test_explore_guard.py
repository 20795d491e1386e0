"""The explorer's guard and its error pages, in-process on a run folder written here (no model): a label posted
from another site is refused and writes nothing, while the same post from the desk's own page is filed; a bad
URL or body gets a short page with the right status, never a 500 or a traceback."""

import asyncio
import json
import re

import httpx
import pandas as pd
import pytest

RUN = "depth_sweep/t"
ITEMS = [{"question": f"What is item {i}?", "gold": f"answer {i}", "response": f"reply {i}", "cluster": i,
          "judge": i % 2, "verdict_p": 0.3 + 0.1 * i} for i in range(4)]


@pytest.fixture
def explorer(tmp_path, monkeypatch):
    """The explorer's ASGI app over one run folder of four judged items, with an empty label folder."""
    from lclab import paths
    from lclab.explore.server import app
    from lclab.explore.store import build
    from lclab.scoring import labels as label_files

    run = tmp_path / "results" / RUN
    run.mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"experiment": "depth_sweep", "run_name": "t"}))
    (run / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ITEMS))
    labels = tmp_path / "labels"
    labels.mkdir()
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(label_files, "LABELS", labels)
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
    form, cookie = desk_form(asgi)
    referer_only = call(asgi, "POST", "/-/desk/label", data=form,
                        headers={"Referer": "http://127.0.0.1:8765/-/desk", "Cookie": f"ds_csrftoken={cookie}"})
    assert referer_only.status_code == 302  # a browser that sends no Origin still names the page in Referer
    assert call(asgi, "GET", "/lab", client=("10.0.0.7", 50000)).status_code == 403
