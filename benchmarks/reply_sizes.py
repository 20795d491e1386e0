"""The mean reply size per experiment, gateway stage and model over the finished runs in the results folder, and
the fan-outs a plan cannot count before a run: the figures `lclab.planning.priors` declares.

    LCLAB_OUTPUT_DIR=/path/of/a/cold/run .venv/bin/python benchmarks/reply_sizes.py

Read from each run's accounting log (calls made and replies read from the cache alike); no model is called.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import pandas as pd  # noqa: E402
from lclab import paths  # noqa: E402


def main() -> int:
    rows = []
    for log in sorted(paths.RESULTS.glob("*/*/accounting_log.csv")):
        manifest = log.parent / "manifest.json"
        parameters = json.loads(manifest.read_text()).get("parameters", {}) if manifest.exists() else {}
        table = pd.read_csv(log)
        table = table[table["stage"] != "total"]
        if "model" not in table:  # a log from before the model was kept per stage
            table["model"] = parameters.get("model", "?")
        table["experiment"] = log.parent.parent.name
        rows.append(table)
    if not rows:
        sys.exit(f"no accounting logs under {paths.RESULTS}")
    table = pd.concat(rows)
    table["replies"] = table["calls"] + table["cache_hits"]
    table["completion"] = table["completion_tokens"] + table["cached_completion_tokens"]
    sizes = table.groupby(["experiment", "stage", "model"])[["replies", "completion"]].sum()
    sizes["mean_reply_tokens"] = (sizes["completion"] / sizes["replies"]).round(1)
    print(sizes.to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
