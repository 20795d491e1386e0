"""RAG-IFEval's tables: the summary of one model, every model side by side, every sample, the console report."""

from __future__ import annotations

import pandas as pd

from ..stats import bootstrap_mean_ci
from .rules import aggregate, pooled


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
