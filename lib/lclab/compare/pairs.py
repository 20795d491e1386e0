"""Series and paired differences per experiment, read from the runs' own files.

A series is one (run, model or method) of one experiment. Its items are the
run's `result_items.jsonl`; the first series is the one the others are paired
with, on the items both measured. What an item is and which value is compared
is the experiment's own declaration (`Experiment.series`), and so is its independent unit: where several
items share a cluster (the depths of one QA pair), intervals resample clusters and paired tests flip the
signs of per-cluster differences (`lclab.stats.clusters`); every row names its unit and their count.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..experiments import Series, get
from ..runs.manifest import read
from ..scoring.labels import labels_for, row_key
from ..scoring.score_eval import paired_auc_difference, separation_summary
from ..stats import bootstrap_mean_ci, paired_effect, wilson_interval
from ..stats.clusters import cluster_mean_ci, cluster_paired_effect
from ..stats.corrected import MIN_LABELS, corrected_difference


def spec_of(experiment: str) -> Series:
    series = get(experiment).series
    if series is None:
        raise ValueError(f"{experiment} declares no per-item comparison (Experiment.series)")
    return series


def _rows(folder: Path, spec: Series) -> pd.DataFrame:
    path = folder / "result_items.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{folder} has no result_items.jsonl: rerun it with this version of the lab")
    rows = pd.read_json(path, lines=True, dtype=False, precise_float=True)
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
            ok = part.dropna(subset=[spec.value, spec.label])
            s = separation_summary(ok[spec.label].astype(int), ok[spec.value].astype(float),
                                   clusters=ok[spec.cluster] if spec.cluster in ok else None)
            rows.append({"series": name, "x": "all", "n": s["n"], "value": s["auc"], "lo": s["auc_lo"],
                         "hi": s["auc_hi"], "measure": "ROC AUC", "unit": spec.unit,
                         "n_clusters": ok[spec.cluster].nunique() if spec.cluster in ok else s["n"]})
            continue
        for x, column in _cells(part, spec):
            values = column.dropna().astype(float)
            clusters = part.loc[values.index, spec.cluster] if spec.cluster in part else None
            n_clusters = clusters.nunique() if clusters is not None else len(values)
            if n_clusters < len(values):  # several items per cluster in this cell: resample clusters
                ci = cluster_mean_ci(values.to_numpy(), clusters.to_numpy())
                lo, hi = ci["lo"], ci["hi"]
            elif spec.binary:
                lo, hi = wilson_interval(int(values.sum()), len(values))
            else:
                lo, hi = bootstrap_mean_ci(values.tolist())
            rows.append({"series": name, "x": x, "n": len(values), "n_clusters": n_clusters, "unit": spec.unit,
                         "value": values.mean() if len(values) else math.nan, "lo": lo, "hi": hi,
                         "measure": spec.value})
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
        # The cluster is often part of the item key (qa_id in (qa_id, depth)), so it sits in the index, not the
        # columns: missing it there tested 01's and 02's items as independent pairs.
        clusters = (base.loc[shared, spec.cluster] if spec.cluster in base.columns else
                    pd.Series(shared.get_level_values(spec.cluster), index=shared) if spec.cluster in key else None)
        if spec.label:
            r = paired_auc_difference(base.loc[shared, spec.label].astype(int), other.loc[shared, spec.value],
                                      base.loc[shared, spec.value], clusters=clusters)
            rows.append({"series": name, "vs": names[0], "n_pairs": r["n"],
                         "n_clusters": r.get("n_clusters", r["n"]), "unit": spec.unit, "effect": r["difference"],
                         "effect_lo": r["difference_lo"], "effect_hi": r["difference_hi"], "p_value": r["p_value"],
                         "test": "AUC difference, " + ("cluster bootstrap" if clusters is not None else "bootstrap")})
            continue
        a, b = other.loc[shared, spec.value].tolist(), base.loc[shared, spec.value].tolist()
        if clusters is not None and clusters.nunique() < len(shared):  # items nested in clusters
            r = cluster_paired_effect(a, b, clusters.tolist())
            test = "cluster t (cluster-robust SE)"
        else:
            r = paired_effect(a, b, binary=spec.binary) | {"n_clusters": len(shared)}
            test = "paired t"
        rows.append({"series": name, "vs": names[0], "unit": spec.unit,
                     **{k: r[k] for k in ("n_pairs", "n_clusters", "effect", "effect_lo", "effect_hi", "p_value")},
                     "test": test, **(_corrected(base, other, shared, clusters, spec) if spec.labels else {})})
    return pd.DataFrame(rows)


def _corrected(base: pd.DataFrame, other: pd.DataFrame, shared: pd.Index, clusters: pd.Series | None,
               spec: Series) -> dict:
    """The difference of the two series' judged rates corrected by the labels their texts meet (PPI++ per run,
    paired cluster bootstrap): the judge's errors move both rates, and only the labels move them back."""
    name, fields = spec.labels
    if not all(f in base.columns and f in other.columns for f in fields):
        return {"corrected_by": f"not corrected: the items lack {', '.join(fields)}"}
    labelled = [labels_for(frame.loc[shared].apply(lambda r: row_key(r, fields), axis=1), name)
                for frame in (other, base)]
    units = clusters.loc[shared] if clusters is not None else pd.Series(range(len(shared)), index=shared)
    got = corrected_difference(other.loc[shared, spec.value].astype(float), labelled[0],
                               base.loc[shared, spec.value].astype(float), labelled[1], units)
    counts = f"{got['n_labelled_a']} and {got['n_labelled_b']} labelled items"
    how = (f"PPI++ per run, cluster bootstrap ({counts})" if pd.notna(got["corrected"]) else
           f"not corrected: {counts}, {MIN_LABELS} in each run needed (lclab.scoring.labelling draws a sheet)")
    return {"corrected_effect": got["corrected"], "corrected_lo": got["corrected_lo"],
            "corrected_hi": got["corrected_hi"], "corrected_by": how}


def with_family(paired: pd.DataFrame, primary: str | None = None) -> pd.DataFrame:
    """`paired` with each comparison's role: the primary one (the series named `primary`, else the first) keeps
    its p-value; the others are a family whose p-values are Holm-adjusted together (`p_adjusted`), so that
    testing many series against one does not make a chance difference look real."""
    from statsmodels.stats.multitest import multipletests

    if not len(paired):
        return paired
    first = paired.index[0] if primary is None or primary not in set(paired["series"]) else \
        paired.index[paired["series"] == primary][0]
    out = paired.assign(role="secondary (Holm)", p_adjusted=paired["p_value"])
    out.loc[first, "role"] = "primary"
    family = out.index[(out.index != first) & out["p_value"].notna()]
    if len(family):
        out.loc[family, "p_adjusted"] = multipletests(out.loc[family, "p_value"], method="holm")[1]
    return out


def compare_family(folders: list[Path], experiment: str, primary: str | None = None
                   ) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """(series summary, paired differences with their roles, {series: rows}) of one experiment's runs."""
    series = series_of(folders, experiment)
    return summary_table(series, experiment), with_family(paired_table(series, experiment), primary), series


__all__ = ["compare_family", "paired_table", "series_of", "spec_of", "summary_table", "with_family"]
