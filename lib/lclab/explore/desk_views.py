"""The labelling desk's pages: /-/desk (the runs that have texts to label, then one text at a time) and
/-/desk/label (a label, a skip or an undo, posted from the desk's own page).

A request the desk cannot serve (a run with nothing to label, a kind no card of the run reads, `n=abc`) gets the
desk's start page with the problem said in words and the ways on (the kinds the run has, the runs that have
texts), status 400: never a bare error page, a Python error's text or a path of this machine."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

from datasette.utils.asgi import Response

from .. import paths
from ..scoring import labels as label_files
from ..scoring.labelling import KINDS, sheet
from .desk import Desk, meanings, rule
from .errors import error_page
from .store import record_label, run_folders

SESSION = ("run", "kind", "n", "seed", "second")  # what names a desk session, in its address and its form
_APPLIES: dict[tuple[Path, str], tuple[float, bool]] = {}  # (run, kind) -> (the item log's mtime, applies)


def applies(run_dir: Path, kind: str) -> bool:
    """Whether a card of this run reads `kind` (its items carry that kind's verdicts); remembered per item log."""
    log = run_dir / "items.jsonl"
    mtime = log.stat().st_mtime if log.exists() else 0.0
    known = _APPLIES.get((run_dir, kind))
    if known is None or known[0] != mtime:
        try:
            sheet(kind, run_dir, include_labelled=True)
            known = (mtime, True)
        except (ValueError, FileNotFoundError):
            known = (mtime, False)
        _APPLIES[(run_dir, kind)] = known
    return known[1]


def runs_and_kinds() -> tuple[dict[str, list[str]], list[str]]:
    """Every run the store lists with the kinds of text it has to label; and the runs with none (no judge
    verdicts: 09's synthetic tasks, a run that failed before its judge)."""
    found, empty = {}, []
    for folder in run_folders():
        name = f"{folder.parent.name}/{folder.name}"
        kinds = [k for k in KINDS if applies(folder, k)]
        if kinds:
            found[name] = kinds
        else:
            empty.append(name)
    return found, empty


def _run_folder(run: str) -> Path:
    """The folder of a run the store lists ("experiment/run_name"), never a path the request makes up."""
    known = {f"{p.parent.name}/{p.name}": p for p in run_folders()}
    if run not in known:
        raise KeyError(f"there is no run {run!r} (the desk lists the runs it knows)")
    return known[run]


def shown_path(text: str) -> str:
    """`text` with this machine's paths said as the lab names them (results/…, data/judge_labels/…)."""
    for root, name in ((paths.RESULTS, "results"), (label_files.LABELS, "data/judge_labels"
                                                    if label_files.LABELS == paths.DATA / "judge_labels"
                                                    else "$LCLAB_LABEL_DIR"), (paths.REPO, ".")):
        text = text.replace(str(root), name)
    return re.sub(r"(?<![\w.$])/(?:[\w.-]+/)+([\w.-]+)", r"\1", text)  # any other absolute path: its file name


def _number(value: str | None, what: str, default: int, least: int) -> int:
    if value in (None, ""):
        return default
    if not value.strip().isdigit() or int(value) < least:
        raise ValueError(f"{what} is a whole number of at least {least}, not {value!r}")
    return int(value)


def session(args) -> tuple[Desk, dict]:
    """The desk session a request names (its address or its form), and those fields to carry on."""
    query = {k: args.get(k) for k in SESSION if args.get(k)}
    if not query.get("kind"):
        raise ValueError("pick the kind of text to label")
    desk = Desk(_run_folder(query.get("run", "")), query["kind"], _number(query.get("n"), "texts to draw (n)", 30, 1),
                _number(query.get("seed"), "the draw's seed", 0, 0), query.get("second") == "1")
    if not applies(desk.run_dir, desk.kind):
        raise ValueError(f"no card of this run reads kind {desk.kind!r}: its items carry no {desk.kind} verdicts")
    return desk, query


async def start_page(datasette, request, problem: str | None = None, run: str | None = None) -> Response:
    """The runs with texts to label and a form to start; with `problem`, what was wrong and the ways on."""
    found, empty = runs_and_kinds()
    return Response.html(await datasette.render_template("desk_runs.html", {
        "runs": found, "empty": empty, "kinds": list(KINDS), "problem": problem, "run": run,
        "run_kinds": found.get(run or "", [])}, request=request), status=400 if problem else 200)


def _said(err: Exception) -> str:
    message = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return shown_path(str(message))


async def desk_page(datasette, request):
    if not request.args.get("run"):
        return await start_page(datasette, request)
    try:
        desk, query = session(request.args)
        item, progress = desk.next_item(), desk.progress()
        last = request.args.get("last", "")
        last_filed = desk.filed(last) if re.fullmatch(r"[0-9a-f]{12}", last) else None
    except (KeyError, ValueError, FileNotFoundError) as err:
        return await start_page(datasette, request, _said(err), request.args.get("run"))
    return Response.html(await datasette.render_template("desk.html", {
        "item": item, "progress": progress, "desk": desk, "query": query, "fields": KINDS[desk.kind],
        "label_file": shown_path(str(desk.label_file)), "meanings": meanings(desk.kind), "rule": rule(desk.kind),
        "last": last if last_filed else None, "last_filed": last_filed,
        "notice": NOTICES.get(request.args.get("notice", "")),
        "other_kinds": [k for k in KINDS if k != desk.kind and applies(desk.run_dir, k)] if item is None else []},
        request=request))


NOTICES = {"again": "That text was filed already (a second key press): it is kept as first given.",
           "undone": "Undone: the last text is shown again, with nothing filed for it."}


async def desk_label(datasette, request):
    """A label (1, 0), a skip or an undo (`label=undo`, of `key`) from the desk's page; back to the desk."""
    if request.method != "POST":
        return error_page(405, "the labelling desk takes a label by POST from its own page", (("/-/desk", "the desk"),))
    form = {}
    try:
        form = await request.post_vars()  # a body that is not UTF-8 raises here (a ValueError)
        desk, query = session(form)
        key, label, source = form.get("key", ""), form.get("label", ""), f"desk: {query['run']}"
        if label == "undo":
            was = desk.undo(key, source)
            if was in ("0", "1") and not desk.second:
                record_label(desk.kind, key, None)
            return Response.redirect("/-/desk?" + urlencode(query | ({"notice": "undone"} if was else {})))
        filed = desk.record(key, label, form.get("note", "").strip(), source=source)
        if filed and label in ("0", "1") and not desk.second:  # in the item tables at once, no restart
            record_label(desk.kind, key, int(label))
    except (KeyError, ValueError, FileNotFoundError) as err:
        return await start_page(datasette, request, _said(err), form.get("run"))
    return Response.redirect("/-/desk?" + urlencode(query | {"last": key} | ({} if filed else {"notice": "again"})))
