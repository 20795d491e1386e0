"""A tiny OpenAI-compatible HTTP server on loopback that misbehaves on purpose.

For tests and benchmarks only: it injects faults (error statuses with or
without Retry-After, garbage bodies, hangs) and a fixed latency, so the
gateway's retry and concurrency behaviour can be checked without a real
outage.  It never stands in for a model in an experiment.

    with FaultServer(faults=[503, 503], delay=0.05) as server:
        os.environ["OPENAI_BASE_URL"] = server.base_url   # two 503s, then valid replies
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

# A fault is an HTTP status (int), or a dict:
#   {"status": 429, "headers": {"Retry-After": "0.2"}, "body": {...}}
#   {"garbage": True}        HTTP 200 with a body that is not a chat completion
#   {"truncated": True}      HTTP 200 with a valid reply's JSON cut in the middle
#   {"hang": 5.0}            wait that long before answering normally
Fault = int | dict


class FaultServer:
    def __init__(self, faults: list[Fault] | None = None, delay: float = 0.0,
                 reply: str | Callable[[dict], str] = "ok", always: Fault | None = None):
        self.faults = deque(faults or [])
        self.always = always  # the fault every request gets once `faults` is used up (None: valid replies)
        self.delay = delay  # seconds added to every request
        self.reply = reply  # content of every successful reply, or a function of the request body
        self.requests: list[dict] = []
        self.paths: list[str] = []  # /v1/chat/completions or /v1/completions, per request
        self.headers: list[dict] = []  # each request's headers (Authorization among them), per request
        self.queries: list[str] = []  # each request's query string, per request
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        # Polled every 20 ms rather than the default 0.5 s: shutdown() waits for the next poll, and tests start
        # and stop dozens of these (31 stops cost 15 s of the suite's warm rerun at 0.5 s).
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> "FaultServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_fault(self, body: dict, path: str, headers: dict, query: str) -> Fault | None:
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)
            self.headers.append(headers)
            self.queries.append(query)
            return self.faults.popleft() if self.faults else self.always

    def _completion(self, body: dict, path: str) -> dict:
        content = self.reply(body) if callable(self.reply) else self.reply
        if not path.endswith("/chat/completions"):  # the legacy text-completion endpoint
            return {"id": "cmpl-fault", "object": "text_completion", "created": int(time.time()),
                    "model": body.get("model", "fault"),
                    "choices": [{"index": 0, "text": content, "finish_reason": "stop", "logprobs": None}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}
        return {
            "id": "chatcmpl-fault",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fault"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, status: int, payload: bytes, headers: dict | None = None,
                      content_type: str = "application/json"):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                path, _, query = self.path.partition("?")  # a query string (an api-version) is not the route
                if not path.endswith(("/chat/completions", "/completions")):
                    return self._send(404, b'{"error": "not found"}')  # no tokenize routes: counted by tiktoken
                fault = server._next_fault(body, path, dict(self.headers), query)
                if server.delay:
                    time.sleep(server.delay)
                if isinstance(fault, int):
                    fault = {"status": fault}
                if fault and "hang" in fault:
                    time.sleep(fault["hang"])
                    fault = None
                if fault and fault.get("truncated"):
                    whole = json.dumps(server._completion(body, path)).encode()
                    return self._send(200, whole[: len(whole) // 2])
                if fault and fault.get("garbage"):
                    return self._send(200, b"<html>502 Bad Gateway</html>", content_type="text/html")
                if fault:
                    error = fault.get("body") or {"error": {"message": f"injected {fault['status']}",
                                                            "type": "injected", "code": None}}
                    return self._send(fault["status"], json.dumps(error).encode(), fault.get("headers"))
                self._send(200, json.dumps(server._completion(body, path)).encode())

        return Handler


if __name__ == "__main__":
    # Serve from its own process (benchmarks do this, so the server's work does not
    # compete with the client for one interpreter): prints the base URL, then serves.
    import argparse

    parser = argparse.ArgumentParser(prog="python -m lclab.models.fault_server")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument("--always", type=int, help="answer every request with this HTTP status (e.g. 400)")
    args = parser.parse_args()
    with FaultServer(delay=args.delay, always=args.always) as server:
        print(server.base_url, flush=True)
        threading.Event().wait()
