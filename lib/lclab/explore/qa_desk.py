"""The QA desk's routes (/-/qa, /-/qa/review, /-/qa/record): notebook 00's generated pairs reviewed one at a time in
the browser, blind, each answer written to the run's review file as it is given (lclab.qa.review_desk holds the
logic; this module only turns requests into its calls and its answers into pages).

A run is found by the name this module lists (make_qa_set/<run>), never by a path from the request; a change comes
by POST from the desk's own page with its CSRF token (server.py refuses any other origin before it gets here).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from datasette.utils.asgi import Response

from .. import paths
from ..qa.review import REASONS
from ..qa.review_desk import ReviewDesk
from .errors import error_page

QA_FOLDER = "make_qa_set"  # notebook 00's experiment (lclab.make_qa_set: shared code imports no experiment)
SESSION = ("run", "reviewer", "second", "seed", "audit")  # what a desk's links and forms carry on
REASON_TEXT = {"answer_in_question": "answer in the question", "not_self_contained": "not self-contained",
               "wrong_answer": "wrong answer", "not_factoid": "not a factoid",
               "heading_or_boilerplate": "about a heading or boilerplate", "duplicate": "duplicate", "other": "other"}


def qa_runs() -> dict[str, Path]:
    """Every make_qa_set run with a review file, by the name the desk uses."""
    found = sorted((paths.RESULTS / QA_FOLDER).glob("*/qa_review.csv"))
    return {f"{QA_FOLDER}/{p.parent.name}": p.parent for p in found}


def _desk(args) -> tuple[ReviewDesk, dict]:
    query = {k: str(args.get(k)).strip() for k in SESSION if args.get(k)}
    runs = qa_runs()
    if query.get("run") not in runs:
        raise KeyError(f"no make_qa_set run {query.get('run', '')!r} with a qa_review.csv")
    return ReviewDesk(runs[query["run"]], query.get("reviewer", ""), query.get("second") == "1",
                      float(query.get("audit") or 0.2), int(query.get("seed") or 0)), query


def _summary(run_dir: Path) -> dict:
    """One run's counts for the list (or what is wrong with its files)."""
    try:
        desk = ReviewDesk(run_dir)
        return {**desk.progress(), "second_reviewed": len(desk.second_file())}
    except (ValueError, FileNotFoundError) as err:
        return {"error": str(err)}


async def runs_page(datasette, request):
    runs = {name: _summary(folder) for name, folder in qa_runs().items()}
    return Response.html(await datasette.render_template("qa_desk_runs.html", {
        "runs": runs, "chosen": request.args.get("run", ""), "reviewer": request.args.get("reviewer", ""),
        "asked": request.args.get("asked") == "name"}, request=request))


def marked(view: dict) -> tuple[str, str, str]:
    """The passage cut around the answer where it stands (before, answer, after), or all of it before."""
    at, passage = view["answer_start"], view["passage"]
    if at < 0:
        return passage, "", ""
    end = at + len(view["answer"])
    return passage[:at], passage[at:end], passage[end:]


async def review_page(datasette, request):
    try:
        desk, query = _desk(request.args)
        if not desk.reviewer:  # a new reviewer starts on the list, which asks their name
            return Response.redirect("/-/qa?" + urlencode({"run": query["run"], "asked": "name"}))
        queue = desk.queue()
        view = desk.view(queue[0]) if queue else None
        progress = desk.progress()
        # The CI's bootstrap takes a second or two: given on the finished page, the point estimate on the way.
        agreement = desk.agreement(ci=view is None) if desk.second or view is None else None
    except (KeyError, ValueError, FileNotFoundError) as err:
        return qa_error(err)
    return Response.html(await datasette.render_template("qa_desk.html", {
        "view": view, "passage": marked(view) if view else None, "progress": progress, "agreement": agreement,
        "desk": desk, "query": query, "reasons": [(i + 1, r, REASON_TEXT[r]) for i, r in enumerate(REASONS)],
        "second_link": "/-/qa?" + urlencode({"run": query["run"]})}, request=request))


async def record(datasette, request):
    if request.method != "POST":
        return error_page(405, "the QA desk takes an answer by POST from its own page", (("/-/qa", "the QA desk"),))
    try:
        form = await request.post_vars()
        desk, query = _desk(form)
        edits = {} if desk.second else {"question": form.get("question"), "answer": form.get("answer")}
        # A repeat of the same answer (a double submit) changes nothing and goes on to the next pair.
        desk.record(form.get("qa_id", ""), form.get("validated", ""), form.get("review_reason", ""),
                    form.get("review_note", ""), **edits)
    except (KeyError, ValueError, FileNotFoundError) as err:
        return qa_error(err)
    return Response.redirect("/-/qa/review?" + urlencode(query))


def qa_error(err: Exception) -> Response:
    message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return error_page(400, f"QA desk: {message}", (("/-/qa", "the QA desk's runs"), ("/lab", "all runs")))


ROUTES = [(r"^/-/qa$", runs_page), (r"^/-/qa/review$", review_page), (r"^/-/qa/record$", record)]
