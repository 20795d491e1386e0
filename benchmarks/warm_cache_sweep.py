"""How long does a rerun of the depth sweep take when every model reply is already cached?

Runs notebooks/01_lost_in_the_middle.ipynb twice under a parameter profile,
deleting the finished-rows file in between (so the second run redoes every
item and can only save time through the model-call cache). Outputs go to a
temporary folder; the model-call cache is the repo's, so after a default run
the first pass is already warm too.

    .venv/bin/python benchmarks/warm_cache_sweep.py [--profile default]
"""

import argparse
import os
import tempfile
from pathlib import Path

import pandas as pd
from measured_rows import append  # benchmarks/measured_rows.py: this run as rows of the page


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="default")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    os.environ["LCLAB_OUTPUT_DIR"] = str(out)  # read by lclab.paths at import, and by the kernels

    from lclab.runs.notebooks import NOTEBOOKS, execute, load_profile, parameters_for

    nb = NOTEBOOKS / "01_lost_in_the_middle.ipynb"
    params = parameters_for(nb, load_profile(args.profile))
    rows = []
    for attempt in ("first", "rerun"):
        seconds = execute(nb, params, out / "executed" / f"{attempt}.ipynb")
        run_dir = out / "results" / "depth_sweep" / params.get("run_name", "default")
        acc = pd.read_csv(run_dir / "accounting.csv").set_index("stage")
        rows.append((attempt, seconds, int(acc.loc["total", "calls"]), int(acc.loc["total", "cache_hits"])))
        (run_dir / "items.jsonl").unlink()
    print(f"depth sweep, profile {args.profile!r}")
    print(f"{'run':>6} {'wall s':>8} {'model calls':>12} {'cache hits':>11}")
    for name, seconds, calls, hits in rows:
        print(f"{name:>6} {seconds:>8.1f} {calls:>12} {hits:>11}")
    _, seconds, calls, hits = rows[-1]  # the rerun is what the benchmark measures
    print(append("warm_cache_sweep", [{"profile": args.profile, "wall_s": f"{seconds:.1f}", "model_calls": calls,
                                        "cache_hits": hits}]))


if __name__ == "__main__":
    main()
