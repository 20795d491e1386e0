"""Can the lab keep a fast served endpoint busy? Notebook 09's whole run against a server that answers at once.

    .venv/bin/python benchmarks/served_throughput.py [--haystacks 20] [--in-flight 64]

The synthetic tasks (09) are run through `lclab.synthetic.run.run_synthetic` exactly as the notebook runs them
(exact budgets counted through the server's /tokenize, the gateway, its disk cache, accounting, the item log,
samples file, manifest and summary tables) against `benchmarks/instant_server.py` in its own process. The server
does no model work, so what is measured is the lab: counting the budgets, building the samples, then calls per
second at `--in-flight` requests in flight and the lab's own time per call. Three runs of the same samples:
cold (nothing known: the end-to-end figure), counted (the token counts known, the replies not), warm (every
reply from the cache); their differences are what counting and answering cost. Importing the openai package
(~1 s: its typed API) is timed and printed on its own, before the rest: it is paid once per process, not per call.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--haystacks", type=int, default=20, help="samples (haystacks) per task")
    parser.add_argument("--in-flight", type=int, default=64)
    parser.add_argument("--tasks", nargs="+", default=["needle_single", "needle_multikey", "variables"])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1000, 2000, 4000, 8000])
    parser.add_argument("--depths", type=float, nargs="+", default=[0, 25, 50, 75, 100])
    args = parser.parse_args()

    server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("instant_server.py"))],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        os.environ["LCLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
        os.environ["LCLAB_OUTPUT_DIR"] = tempfile.mkdtemp(prefix="bench-out-")
        from lclab.synthetic.parameters import Parameters as SyntheticParameters
        from lclab.synthetic.run import run_synthetic

        started = time.perf_counter()
        import openai  # noqa: F401  (the client every call goes through: imported once per process, ~1 s)
        print(f"importing the openai client: {time.perf_counter() - started:.2f} s, once per process, "
              "before the timings below (a notebook's kernel pays it once, at its first call)")
        model = f"openai/instant@{url}"
        common = dict(model=model, tasks=args.tasks, context_tokens=args.lengths, depths=args.depths,
                      n_samples=args.haystacks, seed=42, corpus="paul_graham", value_kinds=["numbers", "uuids"])
        walls, page = {}, []
        for label, what in PHASES:
            if label == "counted":  # a new reply cache; the token counts stay known (kept in memory and on disk)
                os.environ["LCLAB_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
            before = stats(url)
            started = time.perf_counter()
            result = run_synthetic(SyntheticParameters(**common, qa_path="", max_answer_tokens=32,
                                                       max_workers=args.in_flight, run_name=f"bench-{label}"))
            wall = walls[label] = time.perf_counter() - started
            after = stats(url)
            calls, counts = after["chat"] - before["chat"], after["tokenize"] - before["tokenize"]
            print(f"{label} run ({what}): {len(result.items)} rows in {wall:.2f} s; {calls} calls, {counts} /tokenize"
                  + (f" ({counts / len(result.items):.2f} per sample)" if counts else "")
                  + (f"; {calls / wall:.0f} calls/s end to end, {1000 * wall / calls:.2f} ms of lab time per call"
                     if calls else f"; {len(result.items) / wall:.0f} rows/s"))
            page.append({"phase": label, "rows": len(result.items), "seconds": f"{wall:.2f}", "calls": calls,
                         "tokenize": counts, "calls_per_s": f"{calls / wall:.0f}" if calls else "",
                         "lab_ms_per_call": f"{1000 * wall / calls:.2f}" if calls else ""})
        rows = len(result.items)
        print(f"counting the budgets (cold minus counted): {walls['cold'] - walls['counted']:.2f} s, "
              f"{1000 * (walls['cold'] - walls['counted']) / rows:.2f} ms per sample")
        print(f"answer phase alone (counted minus warm: every other step is the same in both): "
              f"{rows / (walls['counted'] - walls['warm']):.0f} calls/s at {args.in_flight} in flight, "
              f"{1000 * (walls['counted'] - walls['warm']) / rows:.2f} ms of lab time per call")
        answer = walls["counted"] - walls["warm"]
        page.append({"phase": "answer phase (counted minus warm)", "calls_per_s": f"{rows / answer:.0f}",
                     "lab_ms_per_call": f"{1000 * answer / rows:.2f}"})
        run = time.strftime("%H:%M:%S")  # one measurement's rows share it (several runs a day are several)
        print(append("served_throughput", [{"run": run, **r} for r in page]))
    finally:
        server.terminate()


# Each run's label and what it starts from: the three differ in one thing at a time.
PHASES = [("cold", "empty token store and reply cache: every budget counted through /tokenize, every reply asked"),
          ("counted", "token counts known, reply cache empty"),
          ("warm", "every count and every reply known")]


def stats(url: str) -> dict:
    return json.loads(httpx.get(url.removesuffix("/v1") + "/stats").text)


if __name__ == "__main__":
    main()
