"""What reading the question changes in a claim check: the shipped NLI hypotheses (data/nli_eval, 175 labelled
sentences in 40 items), each checked against the text it comes from, once as 06 checked claims before (premise:
the text alone, the `nli_probability` prompt) and once as it checks them now (premise: the question and the
text, the `claim_check` prompt). AUC of p(supported) per direction with a cluster bootstrap CI over items, and
the paired difference (now − before) resampling items.

    .venv/bin/python benchmarks/claim_check_premise.py --judge local/qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from lclab.scoring.entailment import p_claim_supported, p_supported  # noqa: E402
from lclab.scoring.score_eval import paired_auc_difference  # noqa: E402
from lclab.scoring.shipped_texts import KINDS  # noqa: E402
from lclab.stats.card import cluster_auc_ci  # noqa: E402
from tqdm import tqdm  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="local/qwen2.5-coder-1.5b")
    args = parser.parse_args()
    texts = KINDS["claim_support"].texts()
    before, now = [], []
    for r in tqdm(list(texts.itertuples(index=False)), desc="checks"):
        before.append(p_supported(args.judge, r.premise, r.claim, stage="premise alone").score)
        now.append(p_claim_supported(args.judge, r.question, r.premise, r.claim, stage="question + premise").score)
    texts = texts.assign(before=before, now=now)
    rows = []
    for direction, part in [("all", texts), *texts.groupby("direction")]:
        y = part["label"].to_numpy()
        row = {"judge": args.judge, "direction": direction, "n": len(part), "items": part["cluster"].nunique(),
               "positives": int(y.sum())}
        for name in ("before", "now"):
            scored = part[name].notna().to_numpy()
            s = part[name].fillna(0.5).to_numpy(dtype=float)
            lo, hi = cluster_auc_ci(y, s, part["cluster"])
            from sklearn.metrics import roc_auc_score

            row |= {f"auc_{name}": roc_auc_score(y, s), f"auc_{name}_lo": lo, f"auc_{name}_hi": hi,
                    f"unscored_{name}": int((~scored).sum()),
                    f"accuracy_{name}": float(((s >= 0.5) == y).mean())}
        diff = paired_auc_difference(y, part["now"].fillna(0.5), part["before"].fillna(0.5), clusters=part["cluster"])
        row |= {"now_minus_before": diff["difference"], "lo": diff["difference_lo"], "hi": diff["difference_hi"]}
        rows.append(row)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(pd.DataFrame(rows).round(3).to_string(index=False))
    print("p(supported) of unsupported sentences, mean: before "
          f"{np.nanmean(texts.loc[texts.label == 0, 'before']):.2f}, now {np.nanmean(texts.loc[texts.label == 0, 'now']):.2f}")


if __name__ == "__main__":
    main()
