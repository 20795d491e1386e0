"""The explorer's server: Datasette over the store, on the loopback interface only.

Every request is checked before Datasette sees it: from a loopback address, naming a loopback host (a page on
another site cannot reach it through a name that resolves here), else 403. A request that can change something
(any method but GET, HEAD and OPTIONS) must also come from the explorer's own pages: its `Origin` (or, where a
browser sends none, its `Referer`) is this server's own loopback origin, and it carries Datasette's CSRF cookie,
whose token asgi-csrf then checks against the form's. Without the cookie rule a cross-site form POST would pass:
asgi-csrf skips its check when a request has no cookie, and a browser leaves the `SameSite=Lax` cookie out of a
cross-site POST.
"""

from __future__ import annotations

import ipaddress
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

from . import errors, lists, plugin
from .refresh import Refresher, refreshing
from .store import DATABASE

TEMPLATES = Path(__file__).with_name("templates")
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]"}
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
CSRF_COOKIE = "ds_csrftoken"  # Datasette's name for asgi-csrf's cookie


def app(db_file: Path):
    """The ASGI app: Datasette serving `db_file` as /lab, with the explorer's plugin and templates."""
    from datasette.app import Datasette
    from datasette.plugins import pm

    if not pm.is_registered(plugin):
        pm.register(plugin, name="lclab-explore")
    if not pm.is_registered(errors):
        pm.register(errors, name="lclab-explore-errors")
    if pm.get_plugin("datasette.handle_exception") is not None:
        pm.unregister(name="datasette.handle_exception")  # ours answers every error (errors.py says why)
    served = db_file.with_name(f"{DATABASE}.sqlite") if db_file.stem != DATABASE else db_file
    datasette = Datasette(files=[str(served)], metadata=plugin.metadata(plugin.table_axes(served)),
                          template_dir=str(TEMPLATES),
                          settings={"default_page_size": 50, "truncate_cells_html": lists.EXCERPT,
                                    "allow_download": False, "default_allow_sql": True, "suggest_facets": False})
    return loopback_only(refreshing(lists.noting_the_page(datasette.app()), Refresher(served)))


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _refusal(scope: dict) -> str | None:
    """Why a request must not reach Datasette, or None."""
    headers = {k.lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
    host = headers.get(b"host", "").lower()
    name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
    if not _loopback((scope.get("client") or ("",))[0]) or name not in LOOPBACK_NAMES:
        return "the explorer serves this machine only"
    if scope.get("method", "GET").upper() in SAFE_METHODS:
        return None
    origin = headers.get(b"origin") or _origin_of(headers.get(b"referer", ""))
    if origin != f"http://{host}":
        return (f"a change is accepted only from the explorer's own pages (http://{host}), "
                f"not from {origin or 'a request naming no origin'}")
    try:
        cookies = SimpleCookie(headers.get(b"cookie", ""))
    except CookieError:
        cookies = SimpleCookie()
    if CSRF_COOKIE not in cookies:
        return "a change needs the explorer's CSRF cookie: reload the page and try again"
    return None


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


MAX_BODY = 1_000_000  # bytes: a label post is a few hundred


async def _plain(send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
    await send({"type": "http.response.body", "body": f"{text}\n".encode()})


def loopback_only(asgi):
    """Refuse a request that did not come from this machine or that names another host, and a change (a POST, …)
    that does not come from the explorer's own pages; a change's body must be UTF-8 (asgi-csrf decodes it before
    Datasette sees it, and would fail with a 500 otherwise)."""
    async def guarded(scope, receive, send):
        if scope["type"] == "http":
            refused = _refusal(scope)
            if refused:
                return await _plain(send, 403, refused)
            if scope.get("method", "GET").upper() not in SAFE_METHODS:
                body, more = b"", True
                while more:
                    message = await receive()
                    if message["type"] != "http.request":
                        return
                    body += message.get("body", b"")
                    more = message.get("more_body", False)
                    if len(body) > MAX_BODY:
                        return await _plain(send, 413, f"a change's body is at most {MAX_BODY:,} bytes")
                try:
                    body.decode("utf-8")
                except UnicodeDecodeError as err:
                    return await _plain(send, 400, f"the request's body is not UTF-8 (byte {err.start})")
                replayed = [{"type": "http.request", "body": body, "more_body": False}]

                async def receive_again(receive=receive):
                    return replayed.pop() if replayed else await receive()
                return await asgi(scope, receive_again, send)
        await asgi(scope, receive, send)
    return guarded


def serve(db_file: Path, port: int) -> None:
    import uvicorn

    uvicorn.run(app(db_file), host="127.0.0.1", port=port, log_level="warning")
