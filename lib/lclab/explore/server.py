"""The explorer's server: Datasette over the store, on the loopback interface only.

Every request is checked before Datasette sees it: from a loopback address, naming a loopback host (a page on
another site cannot reach it through a name that resolves here), else 403.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from . import plugin
from .store import DATABASE

TEMPLATES = Path(__file__).with_name("templates")
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]"}


def app(db_file: Path):
    """The ASGI app: Datasette serving `db_file` as /lab, with the explorer's plugin and templates."""
    from datasette.app import Datasette
    from datasette.plugins import pm

    if not pm.is_registered(plugin):
        pm.register(plugin, name="lclab-explore")
    served = db_file.with_name(f"{DATABASE}.sqlite") if db_file.stem != DATABASE else db_file
    datasette = Datasette(files=[str(served)], metadata=plugin.metadata(plugin.table_axes(served)),
                          template_dir=str(TEMPLATES),
                          settings={"default_page_size": 50, "truncate_cells_html": 0, "allow_download": False,
                                    "default_allow_sql": True, "suggest_facets": False})
    return loopback_only(datasette.app())


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def loopback_only(asgi):
    """Refuse a request that did not come from this machine or that names another host."""
    async def guarded(scope, receive, send):
        if scope["type"] == "http":
            client = (scope.get("client") or ("",))[0]
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").lower()
            name = host.rsplit(":", 1)[0] if not host.startswith("[") else host.split("]")[0] + "]"
            if not _loopback(client) or name not in LOOPBACK_NAMES:
                await send({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": b"the explorer serves this machine only\n"})
                return
        await asgi(scope, receive, send)
    return guarded


def serve(db_file: Path, port: int) -> None:
    import uvicorn

    uvicorn.run(app(db_file), host="127.0.0.1", port=port, log_level="warning")
