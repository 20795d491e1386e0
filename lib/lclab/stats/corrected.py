"""A judged rate corrected by labels: what share of items is truly positive, when a judge says yes or no on
every item and labels exist for a few.

    corrected_rate(verdicts, labels, clusters=None)   -> one row: raw, labels only, Rogan–Gladen, PPI++

raw           the judge's own rate over every judged item (Wilson interval). An estimate of what the judge
              says, not of the truth: a judge with 80 % sensitivity and 90 % specificity turns a true 0.60
              into about 0.52, and no number of judged items moves it back.
labels_only   the labels' rate over the labelled items (Wilson interval): unbiased, wide.
rogan_gladen  the raw rate corrected by the judge's sensitivity and specificity measured on the labelled items,
              (raw + spec − 1) / (sens + spec − 1), clipped to [0, 1]; its interval carries the uncertainty of
              both the raw rate and the calibration (a bootstrap that resamples the judged and the labelled
              items independently: scipy.stats.bootstrap). Undefined when sens + spec ≤ 1 (a judge no better
              than chance).
ppi           prediction-powered inference with PPI++'s power tuning (Angelopoulos et al. 2023, `ppi-python`'s
              ppi_mean_pointestimate and ppi_mean_ci): the judge's rate on the unlabelled items, corrected by
              the judge's error measured on the labelled ones; valid whatever the judge's errors, and with the
              tuning no wider than the labels alone. Its interval is ppi-python's, with Student's t (n_labelled
              − 1 df) in place of the normal quantile: at 30 labels the normal one covered 92.5 %.

The labelled items must be a random subset of the judged ones (the lab's labelling sheets draw them so). With
`clusters` (items sharing a QA pair, a document), PPI++'s interval is the cluster bootstrap-t of
`lclab.stats.cluster_ppi` (ppi-python's point estimate; its own interval assumes independent items, and a
percentile bootstrap over 8-14 clusters undercovers), and Rogan–Gladen's is the delta method over cluster
influence values (`lclab.stats.card`), the labelled items as the judge's card: defined whenever the labels say
the judge beats chance.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from . import wilson_interval

N_BOOT = 2000
MIN_LABELS = 10  # fewer labels: the corrected estimates are not given


def _as_arrays(verdicts, labels, clusters) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    v = pd.Series(verdicts).reset_index(drop=True)
    y = pd.Series(labels).reset_index(drop=True)
    judged = v.notna().to_numpy()
    c = None if clusters is None else pd.Series(clusters).reset_index(drop=True)[judged].astype(str).to_numpy()
    return (v[judged].astype(float).to_numpy(), y[judged].map(lambda x: np.nan if pd.isna(x) else float(x))
            .to_numpy(dtype=float), c)


def rogan_gladen(raw: float, sensitivity: float, specificity: float) -> float:
    """The true rate behind a judged rate, given the judge's sensitivity and specificity (NaN when the judge
    is no better than chance: sens + spec ≤ 1)."""
    informative = sensitivity + specificity - 1
    if not informative > 0:
        return math.nan
    return float(min(1.0, max(0.0, (raw + specificity - 1) / informative)))


def _rg_estimate(v: np.ndarray, y: np.ndarray) -> float:
    labelled = ~np.isnan(y)
    vl, yl = v[labelled], y[labelled]
    if not (yl == 1).any() or not (yl == 0).any():
        return math.nan
    return rogan_gladen(float(v.mean()), float(vl[yl == 1].mean()), float(1 - vl[yl == 0].mean()))


def _ppi_estimate(v: np.ndarray, y: np.ndarray) -> float:
    from ppi_py import ppi_mean_pointestimate

    labelled = ~np.isnan(y)
    if labelled.sum() < 2 or labelled.all():
        return math.nan
    return float(np.ravel(ppi_mean_pointestimate(y[labelled], v[labelled], v[~labelled]))[0])


def _clustered_rg(v: np.ndarray, y: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """Rogan–Gladen's interval with clusters: the labelled items as the judge's card (sensitivity, specificity
    and their cluster-robust variances), the delta method over the run's and the card's variance."""
    from .card import card_corrected_rate, card_statistics

    labelled = ~np.isnan(y)
    card = card_statistics(y[labelled], v[labelled], v[labelled], clusters[labelled])
    got = card_corrected_rate(v, clusters, card | {"informative": card["youden"] > 0})
    return got["corrected_lo"], got["corrected_hi"]


def _rg_interval(v: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, float]:
    """Rogan–Gladen's percentile bootstrap interval, the judged and the labelled items resampled independently
    (scipy.stats.bootstrap, vectorized: each resample's rate, sensitivity and specificity at once)."""
    from scipy.stats import bootstrap

    labelled = ~np.isnan(y)
    vl, yl, vu = v[labelled], y[labelled], v[~labelled]

    def statistic(drawn_labelled, drawn_unlabelled=None, axis=-1):
        judged, truth = vl[drawn_labelled], yl[drawn_labelled]
        others = vu[drawn_unlabelled] if drawn_unlabelled is not None else judged[..., :0]
        raw = (judged.sum(axis) + others.sum(axis)) / (judged.shape[axis] + others.shape[axis])
        with np.errstate(invalid="ignore", divide="ignore"):
            sens = (judged * truth).sum(axis) / truth.sum(axis)
            spec = ((1 - judged) * (1 - truth)).sum(axis) / (1 - truth).sum(axis)
            corrected = (raw + spec - 1) / (sens + spec - 1)
        return np.where(sens + spec > 1, np.clip(corrected, 0, 1), np.nan)

    data = (np.arange(len(vl)),) + ((np.arange(len(vu)),) if len(vu) > 1 else ())
    result = bootstrap(data, statistic, n_resamples=N_BOOT, vectorized=True, paired=False, method="percentile",
                       random_state=np.random.default_rng(seed))
    lo, hi = result.confidence_interval
    return float(lo), float(hi)


def corrected_rate(verdicts, labels, clusters=None, alpha: float = 0.05, seed: int = 0,
                   bootstrap_rg: bool = True) -> dict:
    """Raw, labels-only, Rogan–Gladen and PPI++ estimates of the true rate, each with its 95 % interval (see
    the module docstring); `n_judged`, `n_labelled`, the judge's sensitivity and specificity on the labels, and
    `n_clusters` when clusters are given. The corrected estimates are NaN below MIN_LABELS labels.
    `bootstrap_rg=False` leaves out the Rogan–Gladen interval (simulations that only need the others)."""
    v, y, c = _as_arrays(verdicts, labels, clusters)
    labelled = ~np.isnan(y)
    n, n_labelled = len(v), int(labelled.sum())
    raw_lo, raw_hi = wilson_interval(int(v.sum()), n) if n else (math.nan, math.nan)
    out = {"n_judged": n, "n_labelled": n_labelled, "n_clusters": None if c is None else len(set(c)),
           "raw": float(v.mean()) if n else math.nan, "raw_lo": raw_lo, "raw_hi": raw_hi}
    yl, vl = y[labelled], v[labelled]
    lab_lo, lab_hi = wilson_interval(int(yl.sum()), n_labelled) if n_labelled else (math.nan, math.nan)
    out |= {"labels_only": float(yl.mean()) if n_labelled else math.nan, "labels_only_lo": lab_lo,
            "labels_only_hi": lab_hi,
            "sensitivity": float(vl[yl == 1].mean()) if (yl == 1).any() else math.nan,
            "specificity": float(1 - vl[yl == 0].mean()) if (yl == 0).any() else math.nan}
    nan3 = (math.nan, math.nan, math.nan)
    if n_labelled < MIN_LABELS:
        return out | dict(zip(("rogan_gladen", "rogan_gladen_lo", "rogan_gladen_hi"), nan3)) | dict(
            zip(("ppi", "ppi_lo", "ppi_hi"), nan3))
    rg = _rg_estimate(v, y)
    if not bootstrap_rg or math.isnan(rg):
        rg_lo, rg_hi = math.nan, math.nan
    else:
        rg_lo, rg_hi = _clustered_rg(v, y, c) if c is not None else _rg_interval(v, y, seed)
    out |= {"rogan_gladen": rg, "rogan_gladen_lo": rg_lo, "rogan_gladen_hi": rg_hi}
    if labelled.all():  # nothing judged beyond the labels: PPI is the labels' own estimate
        return out | {"ppi": out["labels_only"], "ppi_lo": lab_lo, "ppi_hi": lab_hi}
    ppi = _ppi_estimate(v, y)
    if c is None:
        from ppi_py import ppi_mean_ci
        from scipy.stats import norm, t

        lo, hi = (float(np.ravel(b)[0]) for b in ppi_mean_ci(yl, vl, v[~labelled], alpha=alpha))
        # ppi-python's interval uses the normal quantile; with tens of labels it covers less than it says
        # (92.5 % at 30 labels, docs/trusting-the-numbers.md): widened to Student's t, n_labelled − 1 df.
        half = (hi - lo) / 2 * t.ppf(1 - alpha / 2, n_labelled - 1) / norm.ppf(1 - alpha / 2)
        lo, hi = ppi - half, ppi + half
    else:
        from .cluster_ppi import cluster_ppi

        got = cluster_ppi(y, v, c, alpha=alpha, seed=seed)
        lo, hi = got["lo"], got["hi"]
    return out | {"ppi": ppi, "ppi_lo": max(0.0, lo), "ppi_hi": min(1.0, hi)}


def corrected_difference(verdicts_a, labels_a, verdicts_b, labels_b, clusters, seed: int = 0) -> dict:
    """The difference of two runs' true rates (a − b) when one judge judged both: each run's rate estimated by
    PPI++ from its verdicts and its own labelled items, the difference's 95 % interval from a bootstrap that
    resamples the clusters the runs share (each with all its items in both runs, so the pairing is kept).

    The four series are aligned item by item (item i of run a and item i of run b are the same trial);
    labels are NaN where none was written. Below MIN_LABELS labelled items in either run, no correction is
    made (`corrected` NaN) and `n_labelled_a`, `n_labelled_b` say why."""
    va, vb = (pd.Series(v).astype(float).to_numpy() for v in (verdicts_a, verdicts_b))
    ya, yb = (pd.Series(y).map(lambda x: np.nan if pd.isna(x) else float(x)).to_numpy(dtype=float)
              for y in (labels_a, labels_b))
    both = ~np.isnan(va) & ~np.isnan(vb)
    va, vb, ya, yb = va[both], vb[both], ya[both], yb[both]
    c = pd.Series(clusters).astype(str).to_numpy()[both]
    out = {"n_items": int(both.sum()), "n_clusters": len(set(c)), "raw_difference": float(va.mean() - vb.mean())
           if both.any() else math.nan, "n_labelled_a": int((~np.isnan(ya)).sum()),
           "n_labelled_b": int((~np.isnan(yb)).sum())}
    if min(out["n_labelled_a"], out["n_labelled_b"]) < MIN_LABELS:
        return out | {"corrected": math.nan, "corrected_lo": math.nan, "corrected_hi": math.nan}

    def estimate(rows: np.ndarray) -> float:
        return _ppi_estimate(va[rows], ya[rows]) - _ppi_estimate(vb[rows], yb[rows])

    from scipy.stats import bootstrap

    names, index = np.unique(c, return_inverse=True)
    members = [np.flatnonzero(index == k) for k in range(len(names))]
    result = bootstrap((np.arange(len(names)),),
                       lambda drawn: estimate(np.concatenate([members[int(k)] for k in drawn])),
                       n_resamples=N_BOOT, vectorized=False, method="percentile",
                       random_state=np.random.default_rng(seed))
    lo, hi = result.confidence_interval
    return out | {"corrected": estimate(np.arange(len(va))), "corrected_lo": float(lo), "corrected_hi": float(hi)}
