"""The explorer's QA desk (/-/qa) on a make_qa_set run folder written here (no model, no notebook). In headless
Chromium, as a new user: ten pairs reviewed by keyboard, one question edited, one pair rejected with a reason, the
browser closed half-way and reopened, every answer in the review file; a second reviewer's kappa on the page; a
page of another origin posting the desk's form refused.
In-process: the page is blind (no check result or verdict in its HTML), a removed pair mixed in is written to
qa_rejected.csv, a double submit goes on to the next pair, a write from another origin is refused."""

import re
from urllib.parse import urlencode

import httpx
import pandas as pd
import pytest
from lclab.qa.review_desk import REJECTED, REVIEW, SECOND, ReviewDesk

from conftest import free_port, start_explorer
from qa_run import CHECKS, write_run
from test_explore import chromium  # noqa: F401 (the fixture: Debian's Chromium, or the lab's browser skip)
from test_explore_guard import call

BUSY_PROCESSES = 2  # the explorer and Chromium (conftest orders such modules first)
RUN = "make_qa_set/fixture"
ORIGIN = "http://127.0.0.1:8765"


@pytest.fixture
def qa_explorer(tmp_path, monkeypatch):
    """The explorer's ASGI app over one make_qa_set run (12 pairs for review, 10 removed)."""
    from lclab import paths
    from lclab.explore.server import app
    from lclab.explore.store import build

    run = write_run(tmp_path / "results")
    monkeypatch.setattr(paths, "RESULTS", tmp_path / "results")
    return {"app": app(build(tmp_path / "results" / "lab.sqlite", tmp_path / "results")), "run": run}


def form_of(asgi, query: str) -> tuple[dict, str, str]:
    """The desk's page for `query`: its form's hidden fields with the shown question and answer, the CSRF cookie,
    and the page."""
    page = call(asgi, "GET", f"/-/qa/review?{query}")
    assert page.status_code == 200, page.text[:500]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)"(?: id="[^"]*")? value="([^"]*)"', page.text))
    for name in ("question", "answer"):
        shown = re.search(rf'name="{name}" id="{name}" class="text" size="\d+" value="([^"]*)"', page.text)
        fields |= {name: shown.group(1)} if shown else {}
    return fields, page.cookies["ds_csrftoken"], page.text


def post(asgi, form: dict, cookie: str, **headers) -> httpx.Response:
    return call(asgi, "POST", "/-/qa/record", data=form,
                headers={"Origin": ORIGIN, "Cookie": f"ds_csrftoken={cookie}"} | headers)


def test_the_page_is_blind_and_every_answer_goes_to_the_file_its_pair_is_in(qa_explorer):
    asgi, run = qa_explorer["app"], qa_explorer["run"]
    listed = call(asgi, "GET", "/-/qa").text
    assert RUN in listed and "<td>12</td>" in listed and 'id="start"' in listed
    assert "/-/qa" in call(asgi, "GET", "/").text  # the explorer's front page leads to the desk
    assert call(asgi, "GET", f"/-/qa/review?run={RUN}").headers["location"].startswith("/-/qa?run=")  # name first
    rejected = set(pd.read_csv(run / REJECTED, dtype=str)["qa_id"])
    where = []
    for _ in range(14):  # the 12 pairs for review and 2 removed ones (0.2 of 10), in one queue
        form, cookie, page = form_of(asgi, f"run={RUN}&reviewer=ann")
        shown = re.sub(r"<script>.*?</script>", "", page, flags=re.S)
        for hidden in [*CHECKS, "failed_check", "flags", "low_overlap", "answer_in_source", "llm_supported",
                       "real_question", "rejected", "qa_review.csv", "True", "False", "verdict"]:
            assert hidden not in shown, hidden  # blind: no check, flag, file or verdict on the page
        assert re.search(r"<mark>[^<]+</mark>", page)  # the answer marked in the passage
        assert set(form) == {"csrftoken", "run", "reviewer", "qa_id", "validated", "review_reason", "question",
                             "answer"}
        where.append(form["qa_id"] in rejected)
        assert post(asgi, form | {"validated": "no", "review_reason": "duplicate"}, cookie).status_code == 302
    assert sum(where) == 2 and not all(where[-2:])  # the removed pairs are mixed in, not last
    assert (pd.read_csv(run / REVIEW)["validated"] == "no").all()
    assert (pd.read_csv(run / REJECTED)["validated"] == "no").sum() == 2
    done = call(asgi, "GET", f"/-/qa/review?run={RUN}&reviewer=ann").text
    assert 'id="done"' in done and "of 2 pairs the checks had removed" in done and "second reviewer" in done


def test_a_double_submit_goes_on_and_a_write_from_another_origin_is_refused(qa_explorer):
    asgi, run = qa_explorer["app"], qa_explorer["run"]
    form, cookie, _ = form_of(asgi, f"run={RUN}&reviewer=ann")
    keep = form | {"validated": "yes"}
    before = {f: (run / f).read_text() for f in (REVIEW, REJECTED)}
    for headers in ({"Origin": "https://evil.example"}, {"Origin": "http://localhost:8765"},
                    {"Origin": "", "Referer": "https://evil.example/page"}):
        refused = post(asgi, keep, cookie, **headers)
        assert refused.status_code == 403, (headers, refused.text)
    assert post(asgi, keep, "", Cookie="").status_code == 403  # our origin, but no CSRF cookie
    assert {f: (run / f).read_text() for f in (REVIEW, REJECTED)} == before  # nothing written
    first, again = post(asgi, keep, cookie), post(asgi, keep, cookie)
    assert first.status_code == again.status_code == 302 and again.headers["location"].startswith("/-/qa/review?")
    answered = pd.concat([pd.read_csv(run / f, dtype=str, keep_default_na=False) for f in (REVIEW, REJECTED)])
    assert (answered["validated"] != "").sum() == 1
    bad = post(asgi, form | {"validated": "no"}, cookie)
    assert bad.status_code == 400 and "needs a reason" in bad.text and str(run) not in bad.text
    alone = call(asgi, "GET", f"/-/qa/review?run={RUN}&reviewer=Ann&second=1").text  # the first reviewer
    assert "No pair for a second review" in alone and 'id="qa-form"' not in alone
    nowhere = call(asgi, "GET", "/-/qa/review?run=../../etc&reviewer=ann")
    assert nowhere.status_code == 400 and "no make_qa_set run" in nowhere.text


def keyed(page, key: str) -> None:
    with page.expect_navigation():  # the answer is posted and the desk shows the next pair
        page.keyboard.press(key)


def refused_from_another_origin(page, base: str, run) -> None:
    """A page of another origin on this machine (another port: the same site, so the browser sends the desk's
    cookie) posts the desk's own form, token and all, to the desk: refused, and no file changes."""
    fields = {i.get_attribute("name"): i.input_value() for i in page.locator("#qa-form input[type=hidden]").all()}
    inputs = "".join(f'<input name="{k}" value="{v}">' for k, v in (fields | {"validated": "yes"}).items())
    other = f"http://127.0.0.1:{free_port()}"
    page.route(f"{other}/**", lambda route: route.fulfill(content_type="text/html", body=(
        f'<form id="f" method="post" action="{base}/-/qa/record">{inputs}</form>'
        '<script>document.getElementById("f").submit()</script>')))
    before = {f: (run / f).read_text() for f in (REVIEW, REJECTED, SECOND) if (run / f).exists()}
    with page.expect_navigation(url=f"{base}/-/qa/record") as went:
        page.goto(f"{other}/form")
    assert went.value.status == 403 and "only from the explorer's own pages" in page.content()
    assert {f: (run / f).read_text() for f in before} == before and not (run / SECOND).exists()
    page.goto(f"{base}/-/qa/review?" + urlencode({k: fields[k] for k in ("run", "reviewer", "second")}))


@pytest.mark.slow
def test_a_new_reviewer_reviews_ten_pairs_by_keyboard_closes_the_browser_and_a_second_reviewer_gets_kappa(
        tmp_path, chromium):  # noqa: F811 (the fixture)
    from playwright.sync_api import sync_playwright

    run = write_run(tmp_path / "results")
    server, base = start_explorer(page="/-/qa")
    try:
        given = {}
        with sync_playwright() as p:
            for session in range(2):  # the browser closed half-way, and opened again
                browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page()
                page.goto(f"{base}/")
                page.click("a:has-text('QA desk')")
                page.fill("#reviewer", "ann")
                page.click("#start button")
                assert f"{session * 5} reviewed" in page.locator("#progress").inner_text()
                for i in range(session * 5, session * 5 + 5):
                    qa_id = page.locator("input[name=qa_id]").input_value()
                    assert page.locator("#passage mark").count() == 1
                    if i == 1:  # edit the question in place: Enter in the field does not send it
                        page.keyboard.press("q")
                        page.keyboard.press("End")
                        page.keyboard.type(" (in the town history)")
                        page.keyboard.press("Enter")
                        assert page.locator("input[name=qa_id]").input_value() == qa_id
                        page.keyboard.press("Escape")
                        given[qa_id] = ("yes", "", page.locator("#question").input_value())
                        keyed(page, "k")
                    elif i == 3:  # reject with a reason, and a note
                        page.keyboard.press("n")
                        page.keyboard.type("the answer is the chapter's")
                        page.keyboard.press("Escape")
                        page.keyboard.press("r")
                        keyed(page, "3")
                        given[qa_id] = ("no", "wrong_answer", None)
                    else:
                        given[qa_id] = ("yes" if i % 2 == 0 else "no", "" if i % 2 == 0 else "not_factoid", None)
                        keyed(page, "k" if i % 2 == 0 else "4")
                browser.close()
            answered = pd.concat([pd.read_csv(run / f, dtype=str, keep_default_na=False) for f in (REVIEW, REJECTED)])
            answered = answered.set_index("qa_id")
            assert (answered["validated"] != "").sum() == 10
            for qa_id, (validated, reason, question) in given.items():
                row = answered.loc[qa_id]
                assert (row["validated"], row["review_reason"], row["reviewer"]) == (validated, reason, "ann")
                if question:
                    assert row["question"] == question and row["original_question"] != question
                    assert question.endswith(" (in the town history)")
            assert answered.loc[list(given)[3], "review_note"] == "the answer is the chapter's"

            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(f"{base}/-/qa")
            page.fill("#reviewer", "bob")
            page.check("input[name=second]")
            page.click("#start button")
            assert "too few pairs" in page.locator("#kappa").inner_text()
            refused_from_another_origin(page, base, run)
            for i in range(10):
                assert page.locator("input[name=question]").count() == 0  # the second reviewer does not edit
                qa_id = page.locator("input[name=qa_id]").input_value()
                keyed(page, "k" if given[qa_id][0] == "yes" or i == 0 else "2")
            kappa = page.locator("#kappa").inner_text()
            browser.close()
        expected = ReviewDesk(run, "bob", second=True).agreement()
        assert len(pd.read_csv(run / SECOND)) == 10
        assert expected["n"] == 10 and f"Cohen's kappa {expected['kappa']:.2f} [" in kappa and "10 pairs" in kappa
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_run_with_a_broken_review_file_is_listed_with_what_is_wrong_and_no_path(qa_explorer, tmp_path):
    asgi = qa_explorer["app"]
    broken = write_run(tmp_path / "results", "broken")
    review = pd.read_csv(broken / REVIEW, dtype=str, keep_default_na=False)
    review.loc[2, "validated"] = "perhaps"
    review.to_csv(broken / REVIEW, index=False)
    listed = call(asgi, "GET", "/-/qa").text
    assert "make_qa_set/broken" in listed and "`validated` must be yes/no/empty" in listed
    assert str(tmp_path) not in listed and "<td>12</td>" in listed  # the other run is listed as before
    page = call(asgi, "GET", "/-/qa/review?run=make_qa_set/broken&reviewer=ann")
    assert page.status_code == 400 and "must be yes/no/empty" in page.text and str(tmp_path) not in page.text
