"""An OpenAI-compatible server that answers at once, for measuring the lab's own overhead (never a model).

It speaks vLLM's dialect where the lab asks more than chat completions: `POST /tokenize` (a count, for exact
budgets), `GET /v1/models` with `max_model_len` (the window). Token counts are realistic in size, not exact:
about one token per four characters, which is what English text costs in most tokenizers. Every reply is a
short fixed sentence of 12 tokens; nothing waits.

    .venv/bin/python benchmarks/instant_server.py [--port 0] [--window 131072]

prints its base URL and serves (uvicorn with one worker, in its own process as a real endpoint would be).
"""

from __future__ import annotations

import argparse
import json
import socket
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

REPLY = "The special numbers are 1234567, 2345678 and 3456789."
COUNTS = {"chat": 0, "tokenize": 0}


def tokens_of(text: str) -> int:
    return max(1, len(text) // 4)


def prompt_text(body: dict) -> str:
    return "".join(m.get("content") or "" for m in body.get("messages", [])) if "messages" in body \
        else body.get("prompt", "")


def _json(payload: dict) -> Response:
    return Response(json.dumps(payload), media_type="application/json")


async def chat(request: Request) -> Response:
    body = json.loads(await request.body())
    COUNTS["chat"] += 1
    prompt = tokens_of(prompt_text(body)) + 8 * len(body.get("messages", []))
    return _json({"id": f"chatcmpl-{COUNTS['chat']}", "object": "chat.completion", "created": int(time.time()),
                  "model": body.get("model", "instant"),
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY},
                               "finish_reason": "stop", "logprobs": None}],
                  "usage": {"prompt_tokens": prompt, "completion_tokens": 12, "total_tokens": prompt + 12}})


async def tokenize(request: Request) -> Response:
    body = json.loads(await request.body())
    COUNTS["tokenize"] += 1
    extra = 8 * len(body["messages"]) + 3 if "messages" in body else 0
    return _json({"count": tokens_of(prompt_text(body)) + extra, "max_model_len": WINDOW, "tokens": []})


async def models(request: Request) -> Response:
    return _json({"object": "list", "data": [{"id": "instant", "object": "model", "max_model_len": WINDOW}]})


async def stats(request: Request) -> Response:
    return _json(COUNTS)


WINDOW = 131072
app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                        Route("/tokenize", tokenize, methods=["POST"]),
                        Route("/v1/models", models), Route("/stats", stats)])


def main() -> None:
    global WINDOW
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--window", type=int, default=WINDOW)
    args = parser.parse_args()
    WINDOW = args.window
    sock = socket.socket()
    sock.bind(("127.0.0.1", args.port))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, backlog=2048, limit_concurrency=4096)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
