"""JSON POSTs to a plain-HTTP server over the standard library's kept-alive connections.

Filling a context budget exactly asks the server to count a prompt two or three times per sample, thousands of
times per run: against a server that counts at once, the client's own work per request is the cost. httpx spends
~0.8 ms of Python per request there and http.client ~0.3 ms (2,551 counts of 30 kB prompts: 2.0 s against 0.8 s,
one process on 2 cores; `benchmarks/served_throughput.py`). So the counts go this way where it is plain
HTTP and no proxy is set for the host; TLS and proxied servers keep httpx (its certificates and proxy settings),
where the network's round trip outweighs the client anyway.
"""

from __future__ import annotations

import http.client
import json
import threading
import urllib.request
from urllib.parse import urlencode, urlsplit


def can_post_plainly(root: str) -> bool:
    """Whether `root` is plain HTTP reached without a proxy and without credentials in the URL (where the
    environment names a proxy, or the URL a user and password, httpx's handling of them holds)."""
    parts = urlsplit(root)
    if parts.scheme != "http" or not parts.hostname or parts.username or parts.password:
        return False
    proxies = urllib.request.getproxies()
    return not (proxies.get("http") or proxies.get("all")) or bool(urllib.request.proxy_bypass(parts.hostname))


class JsonPoster:
    """POST a JSON body, read a JSON reply: one kept-alive connection per request in flight, reused by any thread."""

    def __init__(self, root: str, headers: dict[str, str], query: dict[str, str], timeout: float = 30):
        parts = urlsplit(root)
        self.host, self.port = parts.hostname, parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.suffix = f"?{urlencode(query)}" if query else ""
        self.headers = {**headers, "Content-Type": "application/json", "Accept": "application/json"}
        self.timeout = timeout
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def post(self, path: str, body: dict) -> tuple[int, dict | None]:
        """(HTTP status, the reply's JSON or None when it is not JSON). Raises OSError when the server is not there.

        A kept-alive connection the server has closed meanwhile fails on first use: the request is sent once more
        on a new connection (counting is idempotent). A new connection that fails, or a server that does not answer
        within the timeout, is not tried again."""
        data = json.dumps(body).encode("utf-8")
        while True:
            connection, reused = self._take()
            try:
                connection.request("POST", self.prefix + path + self.suffix, body=data, headers=self.headers)
                reply = connection.getresponse()
                payload = reply.read()
            except (OSError, http.client.HTTPException) as err:
                connection.close()
                if reused and isinstance(err, (ConnectionError, http.client.BadStatusLine)):  # closed meanwhile
                    continue
                raise OSError(f"no reply from {self.host}:{self.port}{self.prefix}{path}: {err}") from None
            if reply.will_close:
                connection.close()
            else:
                with self._lock:
                    self._idle.append(connection)
            try:
                return reply.status, json.loads(payload)
            except ValueError:
                return reply.status, None

    def _take(self) -> tuple[http.client.HTTPConnection, bool]:
        """(a connection, whether it was kept from an earlier request)."""
        with self._lock:
            if self._idle:
                return self._idle.pop(), True
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout), False

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
