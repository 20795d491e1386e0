"""Explore every run's items in the browser, and label a random draw of them.

    python -m lclab.explore                 # rebuild results/lab.sqlite, serve it on http://127.0.0.1:8765/
    python -m lclab.explore --port 9000
    python -m lclab.explore --build-only    # only the store (any SQLite tool reads it)

Serves on 127.0.0.1 only. /lab/<table> lists items (facets and filters on any column), /-/desk is the
labelling desk, /-/qa the QA desk (review notebook 00's pairs). Stop it with Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
import time

from .store import build, store_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lclab.explore", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--build-only", action="store_true", help="write the store and stop")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    path = build()
    print(f"explore: {path} rebuilt from the run folders in {time.perf_counter() - start:.1f} s")
    if args.build_only:
        return 0
    from .server import serve

    print(f"explore: http://127.0.0.1:{args.port}/lab  (labelling desk: /-/desk, QA desk: /-/qa)")
    serve(path, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
