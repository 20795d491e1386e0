"""What the explorer adds to Datasette (its plugin hooks): prompts folded with the gold marked, item ids that open
the item's reading view (/-/item), experiments named as the README names them, summary cells that link to their
items, the labelling desk's two routes (/-/desk, /-/desk/label) and the QA desk's (qa_desk.py)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from urllib.parse import urlencode, urlparse

from datasette import hookimpl
from datasette.utils.asgi import Response
from markupsafe import Markup

from . import qa_desk
from .desk_views import _run_folder, _said, desk_label, desk_page  # noqa: F401 (_run_folder: other desks use it)
from .errors import error_page
from .lists import LIST_STYLE, excerpt, number, on_row_page
from .reading import FOLDS, answer_document, experiment_name, fold_and_mark, reading
from .store import table_name

@hookimpl
def render_cell(row, value, column, table):
    if column == "prompt" and isinstance(value, str):
        mark = row["highlight"] if "highlight" in row.keys() else None
        return Markup(fold_and_mark(value, mark) if on_row_page() else excerpt(value, mark))
    if isinstance(value, float) and not value.is_integer() and not on_row_page():
        return number(value)
    if table == "runs" and column == "headline" and isinstance(value, str):
        return value  # whole: a run's one number is what its row is read for
    if table == "summaries" and column == "items" and isinstance(value, str) and value.startswith("/"):
        return Markup(f'<a href="{html.escape(value)}">items</a>')
    if column == "item_id" and isinstance(value, str) and "rowid" in row.keys():
        href = "/-/item?" + urlencode({"table": table, "rowid": row["rowid"]})
        return Markup(f'<a href="{html.escape(href)}">{html.escape(value)}</a>')
    if column == "experiment" and isinstance(value, str):
        return experiment_name(value)
    return None


# Datasette's pages send no Referer (Referrer-Policy: no-referrer): an item link carries the list it was clicked in.
CARRY_THE_LIST = """document.querySelectorAll('a[href^="/-/item?"]').forEach(a => a.setAttribute("href",
  a.getAttribute("href") + "&from=" + encodeURIComponent(location.pathname + location.search)));"""


@hookimpl
def extra_body_script(view_name):
    return {"table": CARRY_THE_LIST + LIST_STYLE, "row": FOLDS}.get(view_name, "")


def _back(request) -> str | None:
    """The list the item was opened from: `from` (a path of this server), else a same-origin Referer."""
    carried = request.args.get("from", "")
    if carried.startswith("/") and not carried.startswith("//"):
        return carried
    referer = request.headers.get("referer", "")
    return referer if urlparse(referer).netloc == request.host else None


async def item_page(datasette, request):
    """The reading view of one item: its own experiment table's row (every column), found from any table's row."""
    db = datasette.get_database("lab")
    tables = set(await db.table_names())
    table, rowid = request.args.get("table", ""), request.args.get("rowid", "")
    if table not in tables or not rowid.isdigit():
        return error_page(404, f"no item {rowid!r} in table {table!r}", (("/lab", "all runs"),))
    found = (await db.execute(f'select * from "{table}" where rowid = ?', [int(rowid)])).first()
    if found is None:
        return error_page(404, f"no item {rowid} in table {table!r}", (("/lab", "all runs"),))
    row = dict(found)
    own = table_name(row.get("experiment") or "", row.get("item_file") or "")
    if own != table and own in tables:  # the common table holds the shared columns: read the item's own row
        full = (await db.execute(f'select * from "{own}" where run = ? and item_id = ?',
                                 [row.get("run"), row.get("item_id")])).first()
        row = dict(full) if full is not None else row
    document = await answer_document(db, own, row) if own in tables else None
    return Response.html(await datasette.render_template("item.html", reading(row, own, _back(request), document),
                                                         request=request))


def desk_error(err: Exception) -> Response:
    """A short 400 page for a desk request that cannot be served (the labelling desk itself shows its start page
    instead: desk_views.start_page)."""
    return error_page(400, f"labelling desk: {_said(err)}", (("/-/desk", "the desk's runs"), ("/lab", "all runs")))


@hookimpl
def register_routes():
    return [(r"^/-/desk$", desk_page), (r"^/-/desk/label$", desk_label), (r"^/-/item$", item_page), *qa_desk.ROUTES]


def metadata(tables: dict[str, tuple[list[str], list[str]]]) -> dict:
    """Datasette's metadata for the store: titles, and the facets each table opens with (`tables`: each table's
    columns and axes)."""
    described = {"runs": "every run folder", "items": "every item of every run (the common columns)",
                 "summaries": "each summary.csv row; `items` opens the items behind it"}
    common = ["experiment", "model", "judge_vs_match", "judge_vs_label", "label"]
    out = {}
    for name, (columns, axes) in tables.items():
        facets = [c for c in [*(["run"] if name != "runs" else []), *common, *axes] if c in columns]
        experiment, _, log = name.partition("__")
        out[name] = {"description": described.get(name, f"{experiment}: the items of its {log} log, every column"),
                     "facets": list(dict.fromkeys(facets)), "size": 50}
    return {"title": "lclab results", "description_html": (
        'Every run\'s items. <a href="/-/desk">Labelling desk</a> · <a href="/-/qa">QA desk</a> (review generated QA '
        "pairs) · "
        "filter any column, facet by axis, open an item (its id) to read it with its exact prompt."),
        "databases": {"lab": {"tables": out}}}


def table_axes(db_file: Path) -> dict[str, tuple[list[str], list[str]]]:
    """Each table of the store: its columns, and the axes its items carry (what it facets by)."""
    import sqlite3

    with sqlite3.connect(db_file) as db:
        names = [n for (n,) in db.execute("select name from sqlite_master where type='table'")]
        out, columns_of = {}, {}
        for name in names:
            columns = columns_of[name] = [c[1] for c in db.execute(f'pragma table_info("{name}")')]
            axes = set()
            if "axes" in columns:
                for (text,) in db.execute(f'select distinct axes from "{name}" limit 200'):
                    axes |= set(json.loads(text or "{}"))
            out[name] = [a for a in sorted(axes) if a in columns] if name != "items" else []
            if name not in ("runs", "items", "summaries"):
                out[name] += [c for c in ("item_file", "unscored") if c in columns]
    return {n: (columns_of[n], [a for a in v if a != "model"]) for n, v in out.items()}
