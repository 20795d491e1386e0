"""Series and paired differences per experiment family, read from the runs' own files.

A series is one (run, model or method) of one experiment. Its items are the
run's `result_items.jsonl`; the first series is the one the others are paired
with, on the items both measured.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..manifest import read
from ..score_eval import paired_auc_difference, separation_summary
from ..stats import bootstrap_mean_ci, paired_effect, wilson_interval

# Per family: how a row is split into series, its item key, the value compared, and whether it is yes/no.
FAMILIES = {
    "depth_sweep": {"split": [], "key": ["qa_id", "context_tokens", "depth"], "value": "judge_correct", "x": "depth",
                    "binary": True},
    "context_vs_rag": {"split": ["method"], "key": ["qa_id", "noise_pct"], "value": "judge_correct", "x": "noise_pct",
                       "binary": True},
    "rag_validation": {"split": ["set"], "key": ["qa_id"], "value": "judge_correct", "x": "set", "binary": True},
    "pg_discrete": {"split": ["model"], "key": ["point_id"], "value": "weighted", "label": "label", "binary": False},
    "nli_eval": {"split": ["model", "prompt", "concurrency"], "key": ["item_id", "direction", "index"],
                 "value": "estimate_p", "label": "entailed", "binary": False},
    "rag_ifeval": {"split": ["model"], "key": ["id"], "value": "total", "x": None, "binary": False},
}


def _rows(folder: Path) -> pd.DataFrame:
    path = folder / "result_items.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{folder} has no result_items.jsonl: rerun it with this version of the lab")
    rows = pd.read_json(path, lines=True, dtype=False)
    if folder.parent.name == "rag_ifeval" and len(rows):  # per sample: the mean of its pooled scores
        from ..rag_ifeval.rules import METRICS

        pooled = [c for c in METRICS["total"] if c in rows]
        rows["total"] = rows[pooled].mean(axis=1, skipna=True)
    if "ambiguous" in rows:  # pg_discrete: points a reader found ambiguous are not scored against a label
        rows = rows[~rows["ambiguous"].fillna(False).astype(bool)]
    return rows


def series_of(folders: list[Path], family: str) -> dict[str, pd.DataFrame]:
    """{series name: its rows}, in the order of the folders given."""
    spec, out = FAMILIES[family], {}
    for folder in folders:
        m, rows = read(folder), _rows(folder)
        model = m["parameters"].get("model") or ""
        groups = rows.groupby(spec["split"], sort=False) if spec["split"] else [((), rows)]
        for keys, part in groups:
            keys = keys if isinstance(keys, tuple) else (keys,)
            label = " | ".join([m["run_name"], *(str(k).split("/")[-1] for k in keys if k is not None)]
                               + ([model.split("/")[-1]] if model and "model" not in spec["split"] else []))
            out[label] = part
    return out


def summary_table(series: dict[str, pd.DataFrame], family: str) -> pd.DataFrame:
    """Per series (and x where the family has one): the value's mean with a 95 % CI, or the AUC with its CI."""
    spec, rows = FAMILIES[family], []
    for name, part in series.items():
        if "label" in spec:
            ok = part[[spec["value"], spec["label"]]].dropna()
            s = separation_summary(ok[spec["label"]].astype(int), ok[spec["value"]].astype(float))
            rows.append({"series": name, "x": "all", "n": s["n"], "value": s["auc"], "lo": s["auc_lo"],
                         "hi": s["auc_hi"], "measure": "ROC AUC"})
            continue
        if family == "rag_ifeval":  # every condition and pooled measure, not only the total
            from ..rag_ifeval.rules import SCORES

            cells = [(m, part[m]) for m in SCORES if m in part]  # SCORES ends with the total
        else:
            groups = part.groupby(spec["x"], sort=True) if spec.get("x") else [("all", part)]
            cells = [(x, g[spec["value"]]) for x, g in groups]
        for x, column in cells:
            values = column.dropna().astype(float)
            if spec["binary"]:
                lo, hi = wilson_interval(int(values.sum()), len(values))
            else:
                lo, hi = bootstrap_mean_ci(values.tolist())
            rows.append({"series": name, "x": x, "n": len(values), "value": values.mean() if len(values) else math.nan,
                         "lo": lo, "hi": hi, "measure": spec["value"]})
    return pd.DataFrame(rows)


def paired_table(series: dict[str, pd.DataFrame], family: str) -> pd.DataFrame:
    """Every series against the first, on the items both measured (same key): the paired difference."""
    spec, names, rows = FAMILIES[family], list(series), []
    if len(names) < 2:
        return pd.DataFrame()
    base = series[names[0]].drop_duplicates(spec["key"]).set_index(spec["key"])
    for name in names[1:]:
        other = series[name].drop_duplicates(spec["key"]).set_index(spec["key"])
        shared = base.index.intersection(other.index)
        if "label" in spec:
            r = paired_auc_difference(base.loc[shared, spec["label"]].astype(int), other.loc[shared, spec["value"]],
                                      base.loc[shared, spec["value"]])
            rows.append({"series": name, "vs": names[0], "n_pairs": r["n"], "effect": r["difference"],
                         "effect_lo": r["difference_lo"], "effect_hi": r["difference_hi"], "p_value": r["p_value"],
                         "test": "AUC difference, bootstrap"})
            continue
        r = paired_effect(other.loc[shared, spec["value"]].tolist(), base.loc[shared, spec["value"]].tolist(),
                          binary=spec["binary"])
        rows.append({"series": name, "vs": names[0], **{k: r[k] for k in ("n_pairs", "effect", "effect_lo",
                                                                          "effect_hi", "p_value")},
                     "test": "McNemar exact" if spec["binary"] else "sign-flip permutation"})
    return pd.DataFrame(rows)


def compare_family(folders: list[Path], family: str) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(series summary, paired differences, {series: rows}) of one experiment's runs."""
    series = series_of(folders, family)
    return summary_table(series, family), paired_table(series, family), series


__all__ = ["FAMILIES", "compare_family"]
