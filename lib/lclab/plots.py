"""Figures: accuracy vs depth with CI bars, or a depth x length heatmap."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # notebooks under papermill and CI have no display
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns


def _save(fig, path: Path):
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    return fig


def depth_figure(summary: pd.DataFrame, title: str, path: Path, prefix: str = "judge"):
    """Line plot with Wilson 95 % CI bars per context length; a heatmap when there are several lengths."""
    lengths = sorted(summary["context_tokens"].unique())
    acc, lo, hi = f"{prefix}_acc", f"{prefix}_lo", f"{prefix}_hi"
    if len(lengths) == 1:
        fig, ax = plt.subplots(figsize=(6, 4))
        # The two series are drawn a little apart so that equal values don't hide each other.
        for source, style, shift in ((prefix, "o-", -1.0), ("match", "s--", 1.0)):
            if f"{source}_acc" not in summary:
                continue
            s = summary.sort_values("depth")
            yerr = [s[f"{source}_acc"] - s[f"{source}_lo"], s[f"{source}_hi"] - s[f"{source}_acc"]]
            label = "LLM judge" if source == prefix else "gold answer in response"
            ax.errorbar(s["depth"] + shift, s[f"{source}_acc"], yerr=yerr, fmt=style, capsize=4, label=label)
        ax.set_xlabel("depth of the answer document in the context (%)")
        ax.set_ylabel("accuracy")
        ax.set_ylim(-0.05, 1.05)
        ax.set_xticks(sorted(summary["depth"].unique()))
        ax.legend(loc="lower left")
        n = int(summary[f"{prefix}_n"].max())
        ax.set_title(f"{title}\n{lengths[0]}-token context, n = {n} per depth, bars: 95 % Wilson CI")
    else:
        grid = summary.pivot(index="context_tokens", columns="depth", values=acc)
        fig, ax = plt.subplots(figsize=(1.2 * grid.shape[1] + 2.5, 0.6 * grid.shape[0] + 2))
        annot = summary.assign(label=lambda d: d.apply(
            lambda r: f"{r[acc]:.2f}\n[{r[lo]:.2f},{r[hi]:.2f}]", axis=1)
        ).pivot(index="context_tokens", columns="depth", values="label")
        sns.heatmap(grid, annot=annot, fmt="", vmin=0, vmax=1, cmap="viridis", ax=ax,
                    cbar_kws={"label": "judge accuracy"})
        ax.set_xlabel("depth of the answer document (%)")
        ax.set_ylabel("context tokens")
        ax.set_title(f"{title}\ncells: accuracy [95 % Wilson CI]")
    return _save(fig, path)


METHOD_LABELS = {"long_context": "long context", "rag": "RAG (top-k chunks)"}


def context_vs_rag_figure(summary: pd.DataFrame, title: str, path: Path):
    """Accuracy, prompt tokens and answer time per method against the size of the document set.

    The x axis is the set's size as a long context (its mean prompt tokens at each
    noise level): RAG retrieves from exactly that set, so both lines share it.
    """
    size = (summary[summary["method"] == "long_context"].set_index("noise_pct")["prompt_tokens"])
    s = summary.assign(set_tokens=summary["noise_pct"].map(size)).sort_values("noise_pct")
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for i, (method, group) in enumerate(s.groupby("method", sort=True)):
        shift = (i - 0.5) * 0.01 * max(1.0, float(s["set_tokens"].max()))  # keep equal points apart
        yerr = [group["judge_acc"] - group["judge_lo"], group["judge_hi"] - group["judge_acc"]]
        label = METHOD_LABELS.get(method, method)
        axes[0].errorbar(group["set_tokens"] + shift, group["judge_acc"], yerr=yerr, fmt="o-", capsize=4, label=label)
        axes[1].plot(group["set_tokens"], group["prompt_tokens"], "o-", label=label)
        axes[2].plot(group["set_tokens"], group["answer_s"], "o-", label=label)
    n = int(s["judge_n"].max())
    axes[0].set(ylim=(-0.05, 1.05), ylabel="judge accuracy", title=f"accuracy (n = {n} per point, 95 % Wilson CI)")
    axes[1].set(ylabel="prompt tokens per answer", title="prompt size")
    axes[2].set(ylabel="seconds per answer call", title="answer time")
    for ax in axes:
        ax.set_xlabel("document set as a long context (prompt tokens)")
        ax.legend(loc="best")
    fig.suptitle(title)
    return _save(fig, path)


SET_LABELS = {"single": "single-chunk questions (1 reference chunk)", "multi": "multi-chunk questions (3 reference chunks)"}


def retrieval_curves_figure(curves: pd.DataFrame, title: str, path: Path):
    """recall@k and precision@k against k, one line per question set, with bootstrap 95 % bands."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for set_name, group in curves.groupby("set", sort=False):
        label = f"{SET_LABELS.get(set_name, set_name)}, n = {int(group['n'].max())}"
        for ax, metric in zip(axes, ("recall", "precision")):
            ax.plot(group["k"], group[metric], "o-", label=label)
            ax.fill_between(group["k"], group[f"{metric}_lo"], group[f"{metric}_hi"], alpha=0.2)
    for ax, metric in zip(axes, ("recall", "precision")):
        ax.set(xlabel="k (chunks retrieved)", ylabel=f"mean {metric}@k", ylim=(-0.02, 1.02),
               title=f"{metric}@k (bands: bootstrap 95 % CI)")
        ax.set_xticks(sorted(curves["k"].unique()))
    axes[0].legend(loc="lower right", fontsize=8)
    fig.suptitle(title)
    return _save(fig, path)


SCORER_STYLES = {"logprob-weighted p(1)": "-", "sampled 0/1 token": "--"}


def score_separation_figure(scored: pd.DataFrame, separation: pd.DataFrame, calibration: pd.DataFrame,
                            title: str, path: Path):
    """ROC curves and calibration against manual labels: one colour per model, one line style per scorer."""
    from .pg_discrete import SCORERS, usable
    from .score_eval import roc_points

    fig, (roc_ax, cal_ax) = plt.subplots(1, 2, figsize=(11, 4.6))
    colours = dict(zip(separation["model"].unique(), sns.color_palette(n_colors=separation["model"].nunique())))
    points = usable(scored)
    for row in separation.itertuples():
        column = next(k for k, v in SCORERS.items() if v == row.scorer)
        group = points[(points["model"] == row.model) & points[column].notna()]
        if group["label"].nunique() < 2:
            continue
        fpr, tpr = roc_points(group["label"].astype(int), group[column])
        roc_ax.plot(fpr, tpr, SCORER_STYLES[row.scorer], color=colours[row.model], drawstyle="steps-post",
                    label=f"{row.model}, {row.scorer}: AUC {row.auc:.2f} [{row.auc_lo:.2f}, {row.auc_hi:.2f}]")
    roc_ax.plot([0, 1], [0, 1], ":", color="grey")
    roc_ax.set(xlabel="false-positive rate", ylabel="true-positive rate", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title="ROC against manual labels (AUC [bootstrap 95 % CI])")
    roc_ax.legend(loc="lower right", fontsize=7)
    for (model, scorer), group in calibration.groupby(["model", "scorer"], sort=False):
        yerr = [group["observed"] - group["observed_lo"], group["observed_hi"] - group["observed"]]
        cal_ax.errorbar(group["mean_score"], group["observed"], yerr=yerr, fmt="o" + SCORER_STYLES[scorer],
                        color=colours[model], capsize=3, label=f"{model}, {scorer}")
        for r in group.itertuples():
            cal_ax.annotate(f"n={r.n}", (r.mean_score, r.observed), textcoords="offset points", xytext=(4, 4),
                            fontsize=7, color=colours[model])
    cal_ax.plot([0, 1], [0, 1], ":", color="grey")
    cal_ax.set(xlabel="mean score in bin", ylabel="share labelled 'contains the golden response'",
               xlim=(-0.02, 1.02), ylim=(-0.05, 1.05), title="Calibration (5 bins; bars: Wilson 95 % CI)")
    cal_ax.legend(loc="upper left", fontsize=7)
    fig.suptitle(title)
    return _save(fig, path)


FACT_SERIES = {"io_binary": ("IO facts, binary OR", "o-"), "io_soft": ("IO facts, soft OR", "o--"),
               "cot_binary": ("COT facts, binary OR", "s-"), "cot_soft": ("COT facts, soft OR", "s--")}


def coverage_figure(combinations: pd.DataFrame, title: str, path: Path):
    """Left: combination score against the number of golden contexts in it. Right: IO against COT facts."""
    fig, (by_golden, io_cot) = plt.subplots(1, 2, figsize=(11, 4.4))
    series = [c for c in FACT_SERIES if c in combinations]
    for i, column in enumerate(series):
        label, style = FACT_SERIES[column]
        stats = combinations.groupby("n_golden")[column].agg(["mean", "min", "max"]).reset_index()
        shift = (i - (len(series) - 1) / 2) * 0.06  # equal values would hide each other
        by_golden.errorbar(stats["n_golden"] + shift, stats["mean"],
                           yerr=[stats["mean"] - stats["min"], stats["max"] - stats["mean"]],
                           fmt=style, capsize=3, label=label)
    by_golden.set(xlabel="golden contexts in the combination", ylabel="share of golden-response facts covered",
                  ylim=(-0.05, 1.05), title="Coverage vs golden contexts (mean; bars: min-max)")
    by_golden.set_xticks(sorted(combinations["n_golden"].unique()))
    by_golden.legend(loc="lower right", fontsize=8)
    for mode, marker in (("binary", "o"), ("soft", "^")):
        if f"io_{mode}" in combinations and f"cot_{mode}" in combinations:
            io_cot.scatter(combinations[f"io_{mode}"], combinations[f"cot_{mode}"], marker=marker, alpha=0.6,
                           label=f"{mode} OR ({len(combinations)} combinations)")
    io_cot.plot([0, 1], [0, 1], ":", color="grey")
    io_cot.set(xlabel="score with IO facts", ylabel="score with COT facts", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title="IO vs chain-of-thought fact extraction")
    io_cot.legend(loc="upper left", fontsize=8)
    fig.suptitle(title)
    return _save(fig, path)


def nli_figure(hypotheses: pd.DataFrame, auc: pd.DataFrame, timing: pd.DataFrame, title: str, path: Path):
    """One ROC panel per NLI direction (a line per configuration), and time against concurrency."""
    from .nli_run import DIRECTIONS, DIRECTION_NAMES
    from .score_eval import roc_points

    fig, axes = plt.subplots(1, len(DIRECTIONS) + 1, figsize=(17, 4.4))
    configs = list(auc[["model", "prompt", "concurrency"]].drop_duplicates().itertuples(index=False))
    colours = dict(zip(configs, sns.color_palette(n_colors=len(configs))))
    for ax, d in zip(axes, DIRECTIONS):
        for c in configs:
            part = hypotheses[(hypotheses.direction == d) & (hypotheses.model == c.model)
                              & (hypotheses.prompt == c.prompt) & (hypotheses.concurrency == c.concurrency)
                              & hypotheses.entailed.notna() & hypotheses.estimate.notna()]
            row = auc[(auc.direction == DIRECTION_NAMES[d]) & (auc.model == c.model) & (auc.prompt == c.prompt)
                      & (auc.concurrency == c.concurrency)].iloc[0]
            if part.entailed.nunique() < 2:
                continue
            fpr, tpr = roc_points(part.entailed.astype(int), part.estimate.astype(float))
            ax.plot(fpr, tpr, color=colours[c], drawstyle="steps-post",
                    label=f"{c.model.split('/')[-1]}, {c.prompt}, c={c.concurrency}: "
                          f"{row.auc:.2f} [{row.auc_lo:.2f}, {row.auc_hi:.2f}]")
        ax.plot([0, 1], [0, 1], ":", color="grey")
        ax.set(xlabel="false-positive rate", ylabel="true-positive rate", xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               title=f"{DIRECTION_NAMES[d]} (n={int(row.n)})")
        ax.legend(loc="lower right", fontsize=7, title="AUC [bootstrap 95 % CI]", title_fontsize=7)
    ax = axes[-1]
    for (model, prompt), group in timing.groupby(["model", "prompt"], sort=False):
        group = group.sort_values("concurrency")
        name = f"{model.split('/')[-1]}, {prompt}"
        ax.plot(group.concurrency, group.transform_s, "o--", label=f"{name}: transforming")
        ax.plot(group.concurrency, group.nli_s, "s-", label=f"{name}: getting NLI")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(timing.concurrency.unique()), labels=[str(c) for c in sorted(timing.concurrency.unique())])
    ax.set(xlabel="concurrent requests", ylabel="seconds (wall clock)", ylim=(0, None),
           title="Time vs concurrency")
    ax.legend(fontsize=7)
    fig.suptitle(title)
    return _save(fig, path)


def rag_ifeval_figure(summaries: pd.DataFrame, title: str, path: Path):
    """Per condition and pooled measure, one bar per model, with bootstrap 95 % CIs and the count of scores."""
    metrics = ["include", "exclude", "cite_f1", "refuse", "safe", "correctness", "safety", "total"]
    data = summaries[summaries.metric.isin(metrics) & (summaries.n > 0)]
    models = list(dict.fromkeys(data.model))
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(metrics) * max(1, len(models)) ** 0.5), 4.4))
    width = 0.8 / max(1, len(models))
    for i, (model, colour) in enumerate(zip(models, sns.color_palette(n_colors=len(models)))):
        part = data[data.model == model].set_index("metric").reindex(metrics)
        x = [j + (i - (len(models) - 1) / 2) * width for j in range(len(metrics))]
        err = [(part.score - part.lo).clip(lower=0).fillna(0), (part.hi - part.score).clip(lower=0).fillna(0)]
        ax.bar(x, part.score, width, yerr=err, capsize=2, color=colour, label=model)
    counts = data.groupby("metric").n.max().reindex(metrics)
    ax.set_xticks(range(len(metrics)),
                  labels=[f"{m}\n(n={int(n)})" if pd.notna(n) else m for m, n in counts.items()])
    ax.axvline(4.5, color="grey", linewidth=0.8)  # conditions | pooled measures
    ax.set(ylim=(0, 1.05), ylabel="mean score (bootstrap 95 % CI)", title=title)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, path)
