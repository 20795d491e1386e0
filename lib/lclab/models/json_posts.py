"""JSON POSTs to a plain-HTTP server over the standard library's kept-alive connections: the token counts, and
the chat and text completions of a served model (lclab.models.remote).

Filling a context budget exactly asks the server to count a prompt two or three times per sample, thousands of
times per run: against a server that counts at once, the client's own work per request is the cost. httpx spends
~0.8 ms of Python per request there and http.client ~0.3 ms (2,551 counts of 30 kB prompts: 2.0 s against 0.8 s,
one process on 2 cores; `benchmarks/served_throughput.py`), and the official openai client more again per call.
So the counts and the calls go this way where it is plain HTTP and no proxy is set for the host; TLS and proxied
servers keep httpx and the official client (their certificates and proxy settings), where the network's round
trip outweighs the client anyway.
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


class PlainStatusError(Exception):
    """A reply other than 200: its status, its headers, and its body worded as the official openai client words
    it ("Error code: 400 - {...}"), so an error reads the same whichever way the request went."""

    def __init__(self, status: int, headers, payload: bytes):
        text = payload.decode("utf-8", errors="replace").strip()
        try:
            detail = f"Error code: {status} - {json.loads(text)}"
        except ValueError:
            detail = text or f"Error code: {status}"
        super().__init__(detail)
        self.status, self.headers, self.detail = status, headers, detail


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
        """(HTTP status, the reply's JSON or None when it is not JSON). Raises OSError when the server is not there
        (or does not answer within the timeout)."""
        try:
            status, _, payload = self.exchange(path, body)
        except (OSError, http.client.HTTPException) as err:
            raise OSError(f"no reply from {self.host}:{self.port}{self.prefix}{path}: {err}") from None
        try:
            return status, json.loads(payload)
        except ValueError:
            return status, None

    def reply(self, path: str, body: dict):
        """The reply's JSON (its text where it is not JSON: a proxy's page); a status other than 200 raises
        PlainStatusError, a body cut mid-reply JSONDecodeError (both retried by the caller where transient)."""
        status, headers, payload = self.exchange(path, body)
        if status != 200:
            raise PlainStatusError(status, headers, payload)
        if not headers.get("content-type", "").split(";")[0].strip().endswith("json"):
            return payload.decode("utf-8", errors="replace")
        return json.loads(payload)

    def exchange(self, path: str, body: dict) -> tuple[int, http.client.HTTPMessage, bytes]:
        """(HTTP status, the reply's headers, its body): the errors as the connection raised them (a timeout, a
        refused or reset connection, a body cut short).

        A kept-alive connection the server has closed meanwhile fails on first use, before the server read the
        request: it is sent once more on a new connection. A new connection that fails, or a server that does not
        answer within the timeout, is not tried again."""
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
                raise
            if reply.will_close:
                connection.close()
            else:
                with self._lock:
                    self._idle.append(connection)
            return reply.status, reply.headers, payload

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
