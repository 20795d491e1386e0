"""The explorer's answer to anything that goes wrong: a short page with the right status, and one line on the
terminal.

Datasette's own handler prints every 404 as a rich traceback with the frames' local variables (request data
among them), and raises inside itself on some odd paths (`/../x`, `//x`), which turned a 404 into a 500. The
server replaces it with this one (server.app).
"""

from __future__ import annotations

import html
import sys
import traceback

from datasette import hookimpl
from datasette.utils.asgi import Base400, Response
from datasette.views.base import DatasetteError

STYLE = "font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;line-height:1.45"


def error_page(status: int, message: str, links: tuple[tuple[str, str], ...] = (("/lab", "all runs"),)) -> Response:
    """A short HTML page saying what was wrong, with links onwards (the explorer's start page by default)."""
    onwards = " · ".join(f'<a href="{html.escape(href)}">{html.escape(text)}</a>' for href, text in links)
    body = (f'<!doctype html><meta charset="utf-8"><title>{status}</title><body style="{STYLE}">'
            f"<h1>{status}</h1><p>{html.escape(message)}</p><p>{onwards}</p></body>")
    return Response.html(body, status=status)


def status_and_message(exception: BaseException) -> tuple[int, str]:
    if isinstance(exception, Base400):
        return exception.status, str(exception.args[0]) if exception.args else "bad request"
    if isinstance(exception, DatasetteError):
        return exception.status, str(exception.message)
    return 500, f"the explorer failed: {type(exception).__name__}"


def log_line(request, status: int, exception: BaseException) -> str:
    """One line: the status, the path, what went wrong and, for a failure of the explorer itself, where."""
    where = ""
    if status >= 500 and exception.__traceback__ is not None:
        frame = traceback.extract_tb(exception.__traceback__)[-1]
        where = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
    what = str(exception).splitlines()[0][:200] if str(exception) else type(exception).__name__
    return f"explore: {status} {request.method} {request.path[:200]}: {what}{where}"


@hookimpl
def handle_exception(datasette, request, exception):
    status, message = status_and_message(exception)
    print(log_line(request, status, exception), file=sys.stderr, flush=True)
    if request.path.endswith(".json"):
        return Response.json({"ok": False, "error": message, "status": status}, status=status)
    return error_page(status, message)
