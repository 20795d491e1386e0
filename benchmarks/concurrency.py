"""How much do concurrent requests save against an endpoint with fixed latency?

The same 64 requests, sequentially and with 8 and 32 workers, against the
loopback fault server (in its own process) configured to add a fixed delay per request (a stand-in
for a remote API's latency; no faults injected). Each setting starts with an
empty cache so every request really goes out.

    .venv/bin/python benchmarks/concurrency.py [--requests 64] [--delay 0.25]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

from lclab import models as gateway
from lclab.runs.parallel import map_items
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.25, help="seconds the server waits per request")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 8, 32])
    args = parser.parse_args()

    prompts = [f"request {i}" for i in range(args.requests)]
    rows = []
    # The server runs in its own process, as a real endpoint would: in-process, its
    # request handling would compete with the client threads for the interpreter.
    server = subprocess.Popen([sys.executable, "-m", "lclab.models.fault_server", "--delay", str(args.delay)],
                              stdout=subprocess.PIPE, text=True)
    try:
        os.environ["OPENAI_BASE_URL"] = server.stdout.readline().strip()
        for workers in args.workers:
            os.environ["LCLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
            gateway.reset_backend_registry()
            started = time.perf_counter()
            outcomes = map_items(lambda p: gateway.complete("openai/bench", p, stage="bench"),
                                 prompts, workers=workers, quiet=True)
            wall = time.perf_counter() - started
            assert all(o.ok for o in outcomes), [o.error for o in outcomes if not o.ok][:3]
            rows.append((workers, wall))
    finally:
        server.terminate()
    base = rows[0][1]
    print(f"{args.requests} requests, {args.delay:.2f} s server latency each")
    print(f"{'workers':>8} {'wall s':>8} {'speedup':>8}")
    for workers, wall in rows:
        print(f"{workers:>8} {wall:>8.2f} {base / wall:>7.1f}x")
    print(append("concurrency", [{"workers": w, "requests": args.requests, "latency_s": args.delay,
                                   "wall_s": f"{wall:.2f}", "speedup": f"{base / wall:.1f}"} for w, wall in rows]))


if __name__ == "__main__":
    main()
