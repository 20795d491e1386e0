"""RAG-IFEval's tables: the summary of one model, every model side by side, every sample, the console report."""

from __future__ import annotations

import pandas as pd

from ..stats import bootstrap_mean_ci, paired_effect, power_line
from .rules import METRICS, aggregate, pooled


def _failed(row: dict) -> bool:
    return isinstance(row.get("error"), str)


def summary(rows: list[dict]) -> pd.DataFrame:
    """One row per metric: mean, how many scores it averages, a bootstrap 95 % CI of the mean;
    `attrs["failed"]` counts the samples without an answer (left out, not scored 0)."""
    answered = [{**r["scores"], "len_chars": r["len_chars"], "len_words": r["len_words"]}
                for r in rows if not _failed(r)]
    means = aggregate(answered)
    table = pd.DataFrame([
        {"metric": k, "score": means[k][0], "n": means[k][1],
         **dict(zip(("lo", "hi"), bootstrap_mean_ci(v) if not k.startswith("len_") else (None, None)))}
        for k, v in pooled(answered).items()
    ])
    table.attrs["failed"] = sum(map(_failed, rows))
    return table


def sample_table(rows: list[dict]) -> pd.DataFrame:
    """One row per (model, sample): the answer, every condition's score, or the error."""
    return pd.DataFrame([
        {"model": r["model"], "id": r["id"], "response": None if _failed(r) else r.get("response"),
         **({} if _failed(r) else r["scores"]), "error": r["error"] if _failed(r) else None} for r in rows
    ])


def model_summaries(rows: list[dict]) -> pd.DataFrame:
    """summary() of each model, stacked: model, metric, score, n, lo, hi; plus a `failed` row each."""
    frames = []
    for model in dict.fromkeys(r["model"] for r in rows):
        part = [r for r in rows if r["model"] == model]
        table = summary(part)
        failed = pd.DataFrame([{"metric": "failed", "score": table.attrs["failed"], "n": len(part)}])
        frames.append(pd.concat([table, failed], ignore_index=True).assign(model=model))
    return pd.concat(frames, ignore_index=True)


def score_table(rows: list[dict]) -> pd.DataFrame:
    """Every metric per model (rows: metric in the benchmark's order; columns: score and n per model)."""
    long = model_summaries(rows)
    wide = long.pivot(index="metric", columns="model", values=["score", "n"])
    columns = [(value, model) for value in ("score", "n") for model in dict.fromkeys(long.model)]
    return wide.reindex(index=list(dict.fromkeys(long.metric)), columns=columns)


def format_summary(table: pd.DataFrame) -> str:
    """The console report: percentages for scores, plain numbers for lengths, counts in brackets."""
    lines = []
    for row in table.itertuples():
        if not row.n:
            shown = "-"
        elif row.metric.startswith("len_"):
            shown = f"{row.score:.0f}"
        else:
            shown = f"{100 * row.score:.2f}%"
        lines.append(f"{row.metric:<15} {shown} ({row.n})")
    lines.append(f"{'failed':<15} {table.attrs.get('failed', 0)}")
    return "\n".join(lines)


def models_paired(rows: list[dict]) -> tuple[pd.DataFrame, str]:
    """Each model against the first, paired by sample: the difference in each sample's total score (the mean of
    its pooled condition scores), with a paired t 95 % CI and test; and the power line."""
    totals = {}
    for r in rows:
        if not _failed(r):
            pooled_scores = [r["scores"][k] for k in METRICS["total"] if k in r["scores"]]
            totals.setdefault(r["model"], {})[r["id"]] = sum(pooled_scores) / len(pooled_scores)
    models = list(totals)
    out, line = [], "power: one model only, nothing to pair"
    for other in models[1:]:
        ids = [i for i in totals[models[0]] if i in totals[other]]
        result = paired_effect([totals[other][i] for i in ids], [totals[models[0]][i] for i in ids], binary=False)
        out.append({"comparison": f"{other} − {models[0]}", "measure": "total score per sample",
                    **{k: result[k] for k in ("n_pairs", "effect", "effect_lo", "effect_hi", "p_value")}})
        line = power_line(result["sd_diff"], result["n_pairs"], "samples")
    return pd.DataFrame(out), line
