"""Coverage and width of four estimates of a true rate from a judge's verdicts and a few labels, by simulation
(no model): the judge's raw rate, the labels alone, Rogan–Gladen and PPI++ (lclab.stats.corrected).

    .venv/bin/python benchmarks/judge_correction.py [--replications 500] [--items 600]
    .venv/bin/python benchmarks/judge_correction.py --clustered [--replications 2000]

--clustered: items in clusters of 5 (a QA pair's depths) with intra-cluster correlation 0.3, at 8, 14 and 30
clusters and 30 or 60 random labels (a 0.80/0.90 judge): PPI++ with its interval over clusters (the lab's
bootstrap-t, lclab.stats.cluster_ppi), PPI++ as if items were independent, and the rate corrected by a shipped
card of 40 texts in 20 clusters (Rogan–Gladen by the delta method, lclab.stats.card): its coverage, and how often
it is defined among the runs whose card is informative.

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


def clustered(k: int, n_labels: int, replications: int, seed: int, icc: float = 0.3) -> dict:
    """Coverage and mean width of the clustered estimates of one design (see the module docstring)."""
    from lclab.stats.card import card_corrected_rate, card_statistics
    from lclab.stats.cluster_ppi import cluster_ppi

    rng = np.random.default_rng(seed)
    ab = 1 / icc - 1
    out = {name: [0, []] for name in ("ppi, clusters", "ppi, as independent", "card-corrected")}
    informative = defined = 0
    for r in range(replications):
        p = rng.beta(TRUE_RATE * ab, (1 - TRUE_RATE) * ab, size=k)
        clusters = np.repeat(np.arange(k), 5)
        truth = rng.random(5 * k) < p[clusters]
        verdicts = np.where(truth, rng.random(5 * k) < 0.8, rng.random(5 * k) >= 0.9).astype(float)
        labels = np.full(5 * k, np.nan)
        drawn = rng.choice(5 * k, n_labels, replace=False)
        labels[drawn] = truth[drawn]
        card_labels = (rng.random(40) < 0.55).astype(int)
        card_verdicts = np.where(card_labels == 1, rng.random(40) < 0.8, rng.random(40) >= 0.9).astype(float)
        card = card_statistics(card_labels, card_verdicts, card_verdicts, np.repeat(np.arange(20), 2))
        got = {"ppi, clusters": cluster_ppi(labels, verdicts, clusters, seed=r),
               "ppi, as independent": corrected_rate(verdicts, labels, bootstrap_rg=False)}
        got["ppi, as independent"] = {"lo": got["ppi, as independent"]["ppi_lo"],
                                      "hi": got["ppi, as independent"]["ppi_hi"]}
        if card["informative"]:
            informative += 1
            fixed = card_corrected_rate(verdicts, clusters, card)
            got["card-corrected"] = {"lo": fixed["corrected_lo"], "hi": fixed["corrected_hi"]}
            defined += np.isfinite(fixed["corrected_lo"])
        for name, row in got.items():
            if np.isfinite(row["lo"]):
                out[name][0] += row["lo"] <= TRUE_RATE <= row["hi"]
                out[name][1].append(row["hi"] - row["lo"])
    runs = {"ppi, clusters": replications, "ppi, as independent": replications, "card-corrected": max(defined, 1)}
    cells = {name: (hits / runs[name], float(np.mean(widths)) if widths else float("nan"))
             for name, (hits, widths) in out.items()}
    return cells | {"card defined": (defined / max(informative, 1), informative / replications)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replications", type=int, default=500)
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--clustered", action="store_true")
    args = parser.parse_args()
    if args.clustered:
        print(f"true rate {TRUE_RATE}; clusters of 5, ICC 0.3; judge 0.80/0.90; {args.replications} replications")
        print("| clusters | labels | PPI++ over clusters | PPI++ as if independent | card-corrected (RG) | "
              "RG defined where the card is informative (share informative) |")
        print("|---|---|---|---|---|---|")
        for k, n_labels in ((8, 30), (14, 30), (14, 60), (30, 30), (30, 60)):
            got = clustered(k, n_labels, args.replications, seed=k * 100 + n_labels)
            cells = " | ".join(f"{c:.1%}, {w:.3f}" for c, w in list(got.values())[:3])
            print(f"| {k} | {n_labels} | {cells} | {got['card defined'][0]:.1%} ({got['card defined'][1]:.0%}) |",
                  flush=True)
        return
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
