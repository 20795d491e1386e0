"""The comparison figures: every series of one experiment drawn over the others with its CIs (left), and each
series minus the first, paired by item, with its CI (right)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..figures import PAGE, interval_text, p_text, plt, save_figure
from ..scoring.score_eval import roc_points
from .pairs import spec_of


def shown(series: str) -> str:
    """A series name as a reader wants it: "default-qwen2.5-coder-0.5b | long_context | qwen2.5-coder-0.5b" is
    "long context, qwen2.5-coder-0.5b (run default)" (the run folder repeats the model it is named after)."""
    run, *parts = series.split(" | ")
    if parts and run.endswith("-" + parts[-1]):
        run = run[: -len(parts[-1]) - 1]
    named = ", ".join(p.replace("_", " ") for p in parts)
    return f"{named} (run {run})" if named else run


def family_figure(family: str, summary: pd.DataFrame, paired: pd.DataFrame, series: dict, title: str, path: Path,
                  meta: dict | None = None):
    fig, (left, right) = plt.subplots(1, 2, figsize=(PAGE, 3.0), gridspec_kw={"width_ratios": [3, 2]})
    spec = spec_of(family)
    if spec.label:
        for name, rows in series.items():
            ok = rows[[spec.value, spec.label]].dropna()
            if ok[spec.label].nunique() < 2:
                continue
            fpr, tpr = roc_points(ok[spec.label].astype(int), ok[spec.value].astype(float))
            auc = summary.set_index("series").loc[name]
            left.plot(fpr, tpr, drawstyle="steps-post",
                      label=f"{shown(name)}: {auc.value:.2f} {interval_text(auc.lo, auc.hi, f'too few {spec.unit}')}")
        left.plot([0, 1], [0, 1], ":", color="grey")
        left.set(xlabel="false-positive rate", ylabel="true-positive rate",
                 title=f"ROC (AUC [bootstrap 95 % CI over {spec.unit}])")
    else:
        names = list(dict.fromkeys(summary["series"]))
        xs = list(dict.fromkeys(summary["x"]))
        for i, name in enumerate(names):
            s = summary[summary["series"] == name].set_index("x").reindex(xs)
            shift = (i - (len(names) - 1) / 2) * 0.12  # equal values would hide each other
            left.errorbar([j + shift for j in range(len(xs))], s["value"], capsize=3, fmt="o-", label=shown(name),
                          yerr=[(s["value"] - s["lo"]).clip(lower=0), (s["hi"] - s["value"]).clip(lower=0)])
        labels = [str(x) for x in xs]
        long_labels = sum(map(len, labels)) > 40  # several measure names side by side would overlap
        left.set_xticks(range(len(xs)), labels=labels, rotation=30 if long_labels else 0)
        left.set(xlabel=spec.x_label, ylabel=f"{spec.value_label or spec.value} (95 % CI)", ylim=(-0.05, 1.05))
    left.legend(fontsize=6, loc="best")
    if len(paired):
        y = list(range(len(paired)))
        right.errorbar(paired["effect"], y, fmt="o", capsize=3, color="black",
                       xerr=[paired["effect"] - paired["effect_lo"], paired["effect_hi"] - paired["effect"]])
        right.axvline(0, color="grey", linewidth=0.8)
        right.set_yticks(y, labels=[f"{shown(s)}\n− {shown(v)}\n(n = {n} {unit}, {p_text(p)})" for s, v, n, unit, p in
                                    zip(paired["series"], paired["vs"], paired["n_clusters"], paired["unit"],
                                        paired["p_value"])], fontsize=6)
        right.invert_yaxis()
        right.set(xlabel="paired difference (95 % CI)", title=paired["test"].iloc[0])
    else:
        right.axis("off")
        right.text(0.5, 0.5, "one series only: nothing to pair", ha="center", va="center")
    return save_figure(fig, path, title, meta)
