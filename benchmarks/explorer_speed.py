"""How long the explorer takes to open on a run's items: the store's rebuild, the server's start, and the pages a
user opens first (the items list, a faceted list, an item page with its prompt, a summary, the desk).

    LCLAB_OUTPUT_DIR=/path/of/a/finished/run .venv/bin/python benchmarks/explorer_speed.py [--repeat 5]

Prints seconds per step and the median of `--repeat` loads per page (served on loopback; no model is called).
"""

from __future__ import annotations

import argparse
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def screenshots(base: str, pages: dict[str, str], folder: Path) -> None:
    import shutil

    from playwright.sync_api import sync_playwright

    folder.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name, address in pages.items():
            if name in ("items list", "summaries"):
                continue
            page.goto(base + address)
            out = folder / f"explore_{name.split(',')[0].replace(' ', '_').replace('__', '_')}{'_faceted' * (',' in name)}.png"
            page.screenshot(path=str(out))
            print(f"screenshot: {out}")
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--screenshots", help="also save PNGs of the items list, an item page and the desk here "
                                              "(Debian's Chromium driven by Playwright)")
    args = parser.parse_args()
    from lclab.explore.store import build

    started = time.perf_counter()
    path = build()
    rebuild = time.perf_counter() - started
    print(f"store rebuilt from the run folders: {rebuild:.2f} s ({path.stat().st_size:,} bytes)")
    with sqlite3.connect(path) as db:
        n_items = db.execute("select count(*) from items").fetchone()[0]
        tables = [t for (t,) in db.execute("select name from sqlite_master where type='table' and name like '%__%'")]
        first = db.execute("select run from runs where items > 0 and run like 'depth_sweep/%' limit 1").fetchone()
    print(f"items: {n_items:,} in {len(tables)} experiment tables")
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "lclab.explore", "--port", str(port)], env=os.environ,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                httpx.get(f"{base}/lab", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        serving = time.perf_counter() - started
        print(f"server start (rebuild included): {serving:.2f} s")
        table = "depth_sweep__items" if "depth_sweep__items" in tables else (tables or ["items"])[0]
        pages = {"items list": "/lab/items", f"{table}": f"/lab/{table}", f"{table}, faceted": f"/lab/{table}?depth=50",
                 "item page": f"/lab/{table}/1", "summaries": "/lab/summaries"}
        if first:
            pages["desk"] = f"/-/desk?run={first[0]}&kind=answer_correct&n=30"
        measured = []
        for name, page in pages.items():
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                got = httpx.get(base + page, timeout=60)
                times.append(time.perf_counter() - t)
            print(f"{name:32s} {statistics.median(times) * 1000:7.0f} ms  (HTTP {got.status_code}, {len(got.content):,} bytes)")
            measured.append({"items": n_items, "store_mb": f"{path.stat().st_size / 1e6:.1f}", "rebuild_s": f"{rebuild:.1f}",
                             "serving_after_s": f"{serving:.1f}", "page": name,
                             "median_ms": f"{statistics.median(times) * 1000:.0f}"})
        print(append("explorer_speed", measured))
        if args.screenshots:
            screenshots(base, pages, Path(args.screenshots))
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
