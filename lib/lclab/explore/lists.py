"""How the explorer's item lists read: one short row per item, its verdict and scores first.

A list (Datasette's table view, /lab/<table>) shows each long text as an excerpt (a prompt around its marked
gold, any other text cut at `EXCERPT` characters by Datasette's own `truncate_cells_html`), numbers to three
decimals, and its columns in the order a researcher scans them: the item, its verdict, probability, string match
and label, then the experiment's other numbers (scores, axes, counts), then its texts, shortest first, the prompt
last. The whole text is in the item's reading view (/-/item) and Datasette's row page, which show it folded
around the passage instead. The store writes its tables in this order (`column_order`); which page a cell is
drawn for is noted per request (`noting_the_page`), as Datasette's render_cell hook is not told.
"""

from __future__ import annotations

import contextvars
import html
import re

import pandas as pd

EXCERPT = 80  # characters of a long text shown in a list
FIRST = ("item_id", "verdict", "verdict_p", "string_match", "judge_vs_match", "label", "judge_vs_label", "unscored")
LAST = ("axes", "reply", "highlight", "prompt")  # the common texts, after the experiment's own
_ROW_PAGE = contextvars.ContextVar("lclab_row_page", default=False)
ROW_PATH = re.compile(r"^/lab/[^/]+/[^/]+$")  # Datasette's page of one row (a table's list is /lab/<table>)

# Lists: one line per cell (the prompt's excerpt three), top-aligned, no column wider than 14em.
LIST_STYLE = """document.head.insertAdjacentHTML("beforeend", `<style>
table.rows-and-columns td { vertical-align: top; white-space: nowrap; max-width: 14em; overflow: hidden;
  text-overflow: ellipsis; }
table.rows-and-columns th { white-space: normal; vertical-align: bottom; }
table.rows-and-columns td.col-prompt { max-width: none; }
table.rows-and-columns .lclab-excerpt { display: block; width: 20em; white-space: normal; max-height: 4.2em;
  overflow: hidden; }
</style>`);
// A column's name may break after each underscore: "answer_doc_retrieved" is three short lines, not one wide one.
document.querySelectorAll("table.rows-and-columns th a").forEach(a => {
  a.innerHTML = a.innerHTML.replaceAll("_", "_<wbr>"); });"""


def column_order(table: pd.DataFrame, copies: tuple[str, ...] = ()) -> list[str]:
    """The columns of an item table as a list shows them (the module docstring): the FIRST ones; the scores (yes/no
    columns, and any with a probability `<name>_p` beside it, with it); the other numbers (axes, counts); texts
    by their typical length; the common LAST ones; then the columns no item fills and `copies` (the experiment's
    own name of the verdict and its probability, shown first as `verdict` and `verdict_p`)."""
    def typical_length(column: str) -> float:
        return float(filled[column].astype(str).str.len().median())

    filled = {c: table[c].dropna() for c in table}
    empty = [c for c in table if not len(filled[c]) and c not in {*FIRST, *LAST}]
    first = [c for c in FIRST if c in table]
    rest = [c for c in table if c not in {*first, *empty, *copies, *LAST}]
    judged = {c for c in rest if f"{c}_p" in table} | {f"{c}_p" for c in rest if f"{c}_p" in rest}
    scores = [c for c in rest if c in judged or (filled[c].map(lambda v: isinstance(v, bool)).all()
                                                 and not c.endswith("_cached"))]  # whether a reply was cached
    numbers = [c for c in rest if c not in scores and filled[c].map(lambda v: isinstance(v, (int, float))).all()]
    texts = sorted((c for c in rest if c not in {*scores, *numbers}), key=typical_length)
    return [*first, *scores, *numbers, *texts, *(c for c in LAST if c in table), *empty,
            *(c for c in copies if c in table and c not in empty)]


def noting_the_page(asgi):
    """The ASGI app with each request's kind of page noted (a row page or a list) for `on_row_page`."""
    async def noted(scope, receive, send):
        token = _ROW_PAGE.set(scope.get("type") == "http" and bool(ROW_PATH.match(scope.get("path", ""))))
        try:
            await asgi(scope, receive, send)
        finally:
            _ROW_PAGE.reset(token)
    return noted


def on_row_page() -> bool:
    """Whether the cell being drawn is for Datasette's page of one row (else a list, or an SQL query's rows)."""
    return _ROW_PAGE.get()


def excerpt(text: str, mark: str | None, width: int = EXCERPT) -> str:
    """HTML: `width` characters of `text` around the first place `mark` appears (its start where it does not),
    the mark highlighted; "…" where text is cut."""
    found = re.search(re.escape(mark), text, re.IGNORECASE) if mark and mark.strip() else None
    start = max(0, min(found.start() - width // 3, len(text) - width)) if found else 0
    shown = text[start:start + width]
    out = html.escape(shown)
    if found and found.end() <= start + width:
        a, b = found.start() - start, found.end() - start
        out = f"{html.escape(shown[:a])}<mark>{html.escape(shown[a:b])}</mark>{html.escape(shown[b:])}"
    return (f'<span class="lclab-excerpt" title="the whole text: open the item">{"…" * (start > 0)}{out}'
            f'{"…" * (start + width < len(text))}</span>')


def number(value: float) -> str:
    """A fraction as a list shows it: three decimals (the row page and the reading view show it whole)."""
    return f"{value:.3f}"
