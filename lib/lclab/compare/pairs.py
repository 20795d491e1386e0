"""Series and paired differences per experiment, read from the runs' own files.

A series is one (run, model or method) of one experiment. Its items are the
run's `result_items.jsonl`; the first series is the one the others are paired
with, on the items both measured. What an item is and which value is compared
is the experiment's own declaration (`Experiment.series`).
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..experiments import Series, get
from ..runs.manifest import read
from ..scoring.score_eval import paired_auc_difference, separation_summary
from ..stats import bootstrap_mean_ci, paired_effect, wilson_interval


def spec_of(experiment: str) -> Series:
    series = get(experiment).series
    if series is None:
        raise ValueError(f"{experiment} declares no per-item comparison (Experiment.series)")
    return series


def _rows(folder: Path, spec: Series) -> pd.DataFrame:
    path = folder / "result_items.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{folder} has no result_items.jsonl: rerun it with this version of the lab")
    rows = pd.read_json(path, lines=True, dtype=False)
    return spec.prepare(rows) if spec.prepare else rows


def series_of(folders: list[Path], experiment: str) -> dict[str, pd.DataFrame]:
    """{series name: its rows}, in the order of the folders given."""
    spec, out = spec_of(experiment), {}
    for folder in folders:
        m, rows = read(folder), _rows(folder, spec)
        model = m["parameters"].get("model") or ""
        split = list(spec.split)
        groups = rows.groupby(split, sort=False) if split else [((), rows)]
        for keys, part in groups:
            keys = keys if isinstance(keys, tuple) else (keys,)
            label = " | ".join([m["run_name"], *(str(k).split("/")[-1] for k in keys if k is not None)]
                               + ([model.split("/")[-1]] if model and "model" not in split else []))
            out[label] = part
    return out


def _cells(part: pd.DataFrame, spec: Series) -> list[tuple]:
    if spec.cells:
        return spec.cells(part)
    groups = part.groupby(spec.x, sort=True) if spec.x else [("all", part)]
    return [(x, g[spec.value]) for x, g in groups]


def summary_table(series: dict[str, pd.DataFrame], experiment: str) -> pd.DataFrame:
    """Per series (and x where the experiment has one): the value's mean with a 95 % CI, or the AUC with its CI."""
    spec, rows = spec_of(experiment), []
    for name, part in series.items():
        if spec.label:
            ok = part[[spec.value, spec.label]].dropna()
            s = separation_summary(ok[spec.label].astype(int), ok[spec.value].astype(float))
            rows.append({"series": name, "x": "all", "n": s["n"], "value": s["auc"], "lo": s["auc_lo"],
                         "hi": s["auc_hi"], "measure": "ROC AUC"})
            continue
        for x, column in _cells(part, spec):
            values = column.dropna().astype(float)
            if spec.binary:
                lo, hi = wilson_interval(int(values.sum()), len(values))
            else:
                lo, hi = bootstrap_mean_ci(values.tolist())
            rows.append({"series": name, "x": x, "n": len(values), "value": values.mean() if len(values) else math.nan,
                         "lo": lo, "hi": hi, "measure": spec.value})
    return pd.DataFrame(rows)


def paired_table(series: dict[str, pd.DataFrame], experiment: str) -> pd.DataFrame:
    """Every series against the first, on the items both measured (same key): the paired difference."""
    spec, names, rows = spec_of(experiment), list(series), []
    if len(names) < 2:
        return pd.DataFrame()
    key = list(spec.key)
    base = series[names[0]].drop_duplicates(key).set_index(key)
    for name in names[1:]:
        other = series[name].drop_duplicates(key).set_index(key)
        shared = base.index.intersection(other.index)
        if spec.label:
            r = paired_auc_difference(base.loc[shared, spec.label].astype(int), other.loc[shared, spec.value],
                                      base.loc[shared, spec.value])
            rows.append({"series": name, "vs": names[0], "n_pairs": r["n"], "effect": r["difference"],
                         "effect_lo": r["difference_lo"], "effect_hi": r["difference_hi"], "p_value": r["p_value"],
                         "test": "AUC difference, bootstrap"})
            continue
        r = paired_effect(other.loc[shared, spec.value].tolist(), base.loc[shared, spec.value].tolist(),
                          binary=spec.binary)
        rows.append({"series": name, "vs": names[0], **{k: r[k] for k in ("n_pairs", "effect", "effect_lo",
                                                                          "effect_hi", "p_value")},
                     "test": "McNemar exact" if spec.binary else "sign-flip permutation"})
    return pd.DataFrame(rows)


def compare_family(folders: list[Path], experiment: str) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(series summary, paired differences, {series: rows}) of one experiment's runs."""
    series = series_of(folders, experiment)
    return summary_table(series, experiment), paired_table(series, experiment), series


__all__ = ["compare_family", "paired_table", "series_of", "spec_of", "summary_table"]
