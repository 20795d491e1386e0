"""The token counter's own HTTP: kept-alive connections reused, a connection the server dropped meanwhile
replaced without losing the count, a server that is not there named, and proxies and TLS left to httpx."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import free_port
from lclab.models.json_posts import JsonPoster, can_post_plainly
from lclab.models.served_tokens import ServedTokenizer


class CountingServer:
    """Loopback HTTP/1.1 that counts like vLLM's /tokenize (one token per 4 characters) and records each request's
    connection; `drop_after_reply`: close every connection after its reply, without saying so (a keep-alive
    timeout), so the client finds it closed on its next use."""

    def __init__(self, drop_after_reply: bool = False):
        self.requests: list[dict] = []  # path, query, headers, body, client port
        self.release = threading.Event()  # /hang answers once this is set (the test's end), never by a clock
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                path, _, query = self.path.partition("?")
                server.requests.append({"path": path, "query": query, "headers": dict(self.headers), "body": body,
                                        "port": self.client_address[1]})
                if path.endswith("/hang"):
                    server.release.wait(30)
                    payload, status = b"{}", 200
                elif path.endswith("/garbage"):
                    payload, status = b"<html>busy</html>", 200
                elif path.endswith("/tokenize"):
                    text = body.get("prompt") or "".join(m["content"] for m in body.get("messages", []))
                    payload, status = json.dumps({"count": len(text) // 4, "tokens": []}).encode(), 200
                else:
                    payload, status = b'{"error": "not found"}', 404
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
                if drop_after_reply:
                    self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.root = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_set(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    s = CountingServer()
    yield s
    s.close()


def test_posts_reuse_one_kept_alive_connection_and_carry_the_key_and_query(server):
    poster = JsonPoster(server.root + "/prefix", {"Authorization": "Bearer k"}, {"api-version": "1"})
    replies = [poster.post("/tokenize", {"prompt": "x" * 40}) for _ in range(3)]
    assert replies == [(200, {"count": 10, "tokens": []})] * 3
    assert len({r["port"] for r in server.requests}) == 1  # one connection for all three
    first = server.requests[0]
    assert first["path"] == "/prefix/tokenize" and first["query"] == "api-version=1"
    assert first["headers"]["Authorization"] == "Bearer k" and first["body"] == {"prompt": "x" * 40}
    assert poster.post("/missing", {}) == (404, {"error": "not found"})
    assert poster.post("/garbage", {}) == (200, None)  # a reply that is not JSON is returned as such, not raised
    poster.close()


def test_a_connection_the_server_dropped_is_replaced_and_the_count_kept():
    server = CountingServer(drop_after_reply=True)
    try:
        poster = JsonPoster(server.root, {}, {})
        counts = [poster.post("/tokenize", {"prompt": "y" * (4 * n)})[1]["count"] for n in range(1, 5)]
        assert counts == [1, 2, 3, 4]
        assert len(server.requests) == 4  # each count reached the server once
        assert len({r["port"] for r in server.requests}) == 4  # on a new connection each time
    finally:
        server.close()


def test_a_server_that_is_not_there_is_named_and_not_asked_twice():
    port = free_port()  # nothing listens on it
    with pytest.raises(OSError, match=rf"no reply from 127\.0\.0\.1:{port}/tokenize"):
        JsonPoster(f"http://127.0.0.1:{port}", {}, {}).post("/tokenize", {"prompt": "x"})


def test_a_server_that_does_not_answer_in_time_is_asked_once(server):
    poster = JsonPoster(server.root, {}, {}, timeout=2.0)
    assert poster.post("/tokenize", {"prompt": "abcd"})[0] == 200  # a kept-alive connection to reuse next
    with pytest.raises(OSError, match="no reply from .*/hang"):
        poster.post("/hang", {})  # the server holds it until the test ends: only the client's timeout ends it
    # A resend would have been made before the error was raised: none was, on this connection or a new one.
    assert [r["path"] for r in server.requests] == ["/tokenize", "/hang"]


def test_plain_http_goes_the_light_way_tls_and_proxies_keep_httpx(monkeypatch):
    assert can_post_plainly("http://127.0.0.1:8080")
    assert not can_post_plainly("https://api.example.com/v1")
    assert not can_post_plainly("http://user:secret@gpu-box:8000")  # httpx sends the URL's credentials
    monkeypatch.setenv("http_proxy", "http://proxy.example:3128")
    assert not can_post_plainly("http://gpu-box:8000")
    monkeypatch.setenv("no_proxy", "gpu-box")
    assert can_post_plainly("http://gpu-box:8000")


def test_a_served_count_goes_through_once_then_comes_from_the_store(server, tmp_path, monkeypatch):
    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    messages = [{"role": "user", "content": "z" * 400}]

    def counter():
        return ServedTokenizer(server.root + "/v1", server.root + "/v1", "m", "secret-key", ("tiktoken", None))

    first = counter()
    assert first._poster is not None and first.dialect == "vllm"  # llama.cpp's /apply-template is not there
    assert first.count_prompt(messages) == 100 and first.count_text("abcd" * 5) == 5
    asked = len(server.requests)
    assert counter().count_prompt(messages) == 100 and len(server.requests) == asked  # from the disk store
    assert all(r["headers"]["Authorization"] == "Bearer secret-key" for r in server.requests)
    assert "secret-key" not in "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())


def test_counts_made_by_many_threads_at_once_are_each_stored_once(server, tmp_path, monkeypatch):
    """Threads counting at once leave the disk store to whichever is writing: every count lands, once, whole."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    counter = ServedTokenizer(server.root + "/v1", server.root + "/v1", "m", None, ("tiktoken", None))
    texts = [[{"role": "user", "content": "y" * (4 * n)}] for n in range(1, 81)]
    with ThreadPoolExecutor(16) as pool:
        assert list(pool.map(counter.count_prompt, texts)) == list(range(1, 81))
    lines = counter._store_path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 80 and sorted(json.loads(line)[1] for line in lines) == list(range(1, 81))
    asked = len(server.requests)
    again = ServedTokenizer(server.root + "/v1", server.root + "/v1", "m", None, ("tiktoken", None))
    assert [again.count_prompt(t) for t in texts] == list(range(1, 81)) and len(server.requests) == asked


def test_a_count_store_that_cannot_be_written_says_so_and_keeps_the_counts_for_the_next_write(server, tmp_path,
                                                                                             monkeypatch):
    import lclab.models.served_tokens as served

    monkeypatch.setenv("LCLAB_CACHE_DIR", str(tmp_path))
    counter = ServedTokenizer(server.root + "/v1", server.root + "/v1", "m", None, ("tiktoken", None))
    real = served.appending

    def full_disk(path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(served, "appending", full_disk)
    with pytest.raises(OSError, match="No space"):
        counter.count_prompt([{"role": "user", "content": "y" * 8}])
    monkeypatch.setattr(served, "appending", real)
    assert counter.count_prompt([{"role": "user", "content": "y" * 12}]) == 3
    assert sorted(json.loads(line)[1] for line in counter._store_path.read_text().splitlines()) == [2, 3]
