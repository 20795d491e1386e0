"""Coverage and width of four estimates of a true rate from a judge's verdicts and a few labels, by simulation
(no model): the judge's raw rate, the labels alone, Rogan–Gladen and PPI++ (lclab.stats.corrected).

    .venv/bin/python benchmarks/judge_correction.py [--replications 500] [--items 600]

Each replication draws `items` items with a true rate of 0.60, a judge of the given sensitivity and specificity
says yes or no on each, and a random subset of 30, 60 or 120 is labelled (the truth). Printed per judge quality
and label count: the share of replications whose 95 % interval holds 0.60, and the mean interval width.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from lclab.stats.corrected import corrected_rate  # noqa: E402

TRUE_RATE = 0.60
JUDGES = [(0.95, 0.95), (0.80, 0.90), (0.70, 0.70)]
ESTIMATES = ("raw", "labels_only", "rogan_gladen", "ppi")


def simulate(sens: float, spec: float, n_labels: int, items: int, replications: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    hits = {e: 0 for e in ESTIMATES}
    widths = {e: [] for e in ESTIMATES}
    for _ in range(replications):
        truth = rng.random(items) < TRUE_RATE
        verdicts = np.where(truth, rng.random(items) < sens, rng.random(items) >= spec).astype(float)
        labels = np.full(items, np.nan)
        drawn = rng.choice(items, n_labels, replace=False)
        labels[drawn] = truth[drawn]
        row = corrected_rate(verdicts, labels, seed=int(rng.integers(1 << 30)))
        for e in ESTIMATES:
            lo, hi = row[f"{e}_lo"], row[f"{e}_hi"]
            if np.isfinite(lo) and np.isfinite(hi):
                hits[e] += lo <= TRUE_RATE <= hi
                widths[e].append(hi - lo)
    return {e: (hits[e] / replications, float(np.mean(widths[e])) if widths[e] else float("nan")) for e in ESTIMATES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replications", type=int, default=500)
    parser.add_argument("--items", type=int, default=600)
    args = parser.parse_args()
    print(f"true rate {TRUE_RATE}; {args.items} judged items; {args.replications} replications per row")
    print("| judge (sens, spec) | labels | " + " | ".join(f"{e}: coverage, width" for e in ESTIMATES) + " |")
    print("|---|---|" + "---|" * len(ESTIMATES))
    for k, (sens, spec) in enumerate(JUDGES):
        for n_labels in (30, 60, 120):
            result = simulate(sens, spec, n_labels, args.items, args.replications, seed=1000 * k + n_labels)
            cells = " | ".join(f"{c:.1%}, {w:.3f}" for c, w in result.values())
            print(f"| {sens:.2f}, {spec:.2f} | {n_labels} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
