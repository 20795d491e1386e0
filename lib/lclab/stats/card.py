"""A judge's card on labelled texts, and rates corrected by it (Rogan–Gladen with the card's uncertainty).

    card = card_statistics(labels, verdicts, probabilities, clusters)
    card["informative"]                       # AUC's and sens + spec − 1's intervals both clear chance
    card_corrected_rate(verdicts, clusters, card)        # the true rate behind a judged rate
    card_corrected_difference(effect, se, df, card)      # a paired difference of judged rates, likewise

Every interval here has the cluster (a question, an item) as its unit: sensitivity, specificity and Youden's J
(sens + spec − 1) from their cluster influence values with a t quantile (k − 1 df), the AUC from a bootstrap
over clusters. A judge is **informative** on a kind when the AUC's interval lies above 0.5 and J's above 0:
only then can its verdicts be read as evidence, and only then is a corrected rate given.

The verdicts a card counts are the judge's probabilities read at a **threshold chosen on the card's texts by
cross-validation**: each fold of clusters (GroupKFold) is read at the threshold that maximises J on the other
folds, never on its own texts, so sensitivity, specificity and J are those of the procedure, not flattered by
it. A run reads its items at the threshold that procedure picks on all the card's texts (`threshold`). A judge
whose probability ranks well but whose 0.5 cut calls nearly everything one class keeps what its ranking knows.

The card-corrected rate is Rogan–Gladen's (raw + spec − 1) / J with raw the run's judged rate and sens, spec the
card's. Its interval is the delta method's, carrying the run's variance (clusters of the run) and the card's
(clusters of the card, independent of the run's), t with min(k_run, k_card) − 1 df; defined whenever J > 0,
which an informative card guarantees. It **assumes the card's texts are like the run's**: a judge's errors on
the shipped texts are its errors on this run's answers. A run's own random labels (PPI++) need no such
assumption, which is why a headline reads PPI++ once a run has enough of them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd



def _auc(labels: np.ndarray, scores: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(labels, scores)) if labels.min() != labels.max() else math.nan


def _codes(clusters) -> tuple[np.ndarray, int]:
    _, index = np.unique(np.asarray(list(clusters)).astype(str), return_inverse=True)
    return index, int(index.max()) + 1 if len(index) else 0


def floor_variance(variance: float, successes: float, n: int) -> float:
    """A proportion's variance, never below the binomial variance of its plus-two estimate (x + 1) / (n + 2)
    (Agresti and Caffo): a sensitivity of 4 out of 4, or a judged rate of 2 out of 2, has a cluster-robust
    variance of 0, and an interval of zero width on 4 texts says what they cannot."""
    shrunk = (successes + 1) / (n + 2)
    return max(float(variance), shrunk * (1 - shrunk) / (n + 2))


def _t(df: int, level: float = 0.95) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.5 + level / 2, max(df, 1)))


def cluster_auc_ci(labels: np.ndarray, scores: np.ndarray, clusters, n_boot: int = 2000, seed: int = 0
                   ) -> tuple[float, float]:
    """Percentile interval of the ROC AUC over resamples of whole clusters (a resample with one class only has
    no AUC and is dropped). A resample is a vector of cluster counts: each positive-negative pair's comparison
    (1, ½ for a tie, 0) weighted by how often both texts were drawn, all resamples at once."""
    index, k = _codes(clusters)
    if k < 2 or labels.min() == labels.max():
        return math.nan, math.nan
    pos, neg = labels == 1, labels == 0
    wins = (scores[pos][:, None] > scores[neg][None, :]) + 0.5 * (scores[pos][:, None] == scores[neg][None, :])
    counts = np.random.default_rng(seed).multinomial(k, np.full(k, 1 / k), size=n_boot).astype(float)
    w_pos, w_neg = counts[:, index[pos]], counts[:, index[neg]]
    with np.errstate(invalid="ignore", divide="ignore"):
        aucs = ((w_pos @ wins) * w_neg).sum(axis=1) / (w_pos.sum(axis=1) * w_neg.sum(axis=1))
    aucs = aucs[np.isfinite(aucs)]
    return (float(np.quantile(aucs, 0.025)), float(np.quantile(aucs, 0.975))) if len(aucs) else (math.nan, math.nan)


def sens_spec(labels: np.ndarray, verdicts: np.ndarray, clusters) -> dict:
    """Sensitivity, specificity and J with cluster-robust variances (and their covariance) and t intervals."""
    index, k = _codes(clusters)
    pos, neg = labels == 1, labels == 0
    out = {"n_clusters": k, "positives": int(pos.sum()), "negatives": int(neg.sum())}
    if not pos.any() or not neg.any() or k < 2:
        return out | {name: math.nan for name in ("sensitivity", "specificity", "youden", "var_sens", "var_spec",
                                                   "cov_sens_spec")}
    sens, spec = float(verdicts[pos].mean()), float(1 - verdicts[neg].mean())
    psi_sens = np.bincount(index, weights=np.where(pos, verdicts - sens, 0) / pos.sum(), minlength=k)
    psi_spec = np.bincount(index, weights=np.where(neg, (1 - verdicts) - spec, 0) / neg.sum(), minlength=k)
    factor = k / (k - 1)
    var_sens = floor_variance(factor * (psi_sens ** 2).sum(), verdicts[pos].sum(), int(pos.sum()))
    var_spec = floor_variance(factor * (psi_spec ** 2).sum(), (1 - verdicts[neg]).sum(), int(neg.sum()))
    cov = factor * (psi_sens * psi_spec).sum()
    t = _t(k - 1)
    youden, se_j = sens + spec - 1, math.sqrt(max(var_sens + var_spec + 2 * cov, 0.0))
    return out | {"sensitivity": sens, "specificity": spec, "youden": youden, "var_sens": var_sens,
                  "var_spec": var_spec, "cov_sens_spec": cov,
                  "sensitivity_lo": max(0.0, sens - t * math.sqrt(var_sens)),
                  "sensitivity_hi": min(1.0, sens + t * math.sqrt(var_sens)),
                  "specificity_lo": max(0.0, spec - t * math.sqrt(var_spec)),
                  "specificity_hi": min(1.0, spec + t * math.sqrt(var_spec)),
                  "youden_lo": max(-1.0, youden - t * se_j), "youden_hi": min(1.0, youden + t * se_j)}


FOLDS = 5  # of clusters, for the card's cross-validated threshold
# A cut leaves 0.5 (the judge's own verdict) only for a J at least this much higher on the texts it is chosen on:
# on a card of 20 texts the best cut's J is mostly noise, and a fold read at a noisy cut loses what 0.5 had.
MOVE_FOR = 0.15


def youden_threshold(labels: np.ndarray, scores: np.ndarray) -> float:
    """The cut on `scores` (read as 1 at or above it) that maximises sensitivity + specificity − 1 on these texts:
    0.5 (the judge's own verdict) where its J is within MOVE_FOR of the best, else the middle of the best gap
    between two scores (nearest 0.5 of several), and 0.5 where no cut beats chance (one class only, or J ≤ 0
    everywhere)."""
    from sklearn.metrics import roc_curve

    if not len(labels) or labels.min() == labels.max():
        return 0.5
    fpr, tpr, cuts = roc_curve(labels, scores, drop_intermediate=False)  # cuts descending, cuts[0] = inf
    j = tpr - fpr
    at_half = (scores[labels == 1] >= 0.5).mean() - (scores[labels == 0] >= 0.5).mean()
    if j.max() <= 0 or j.max() - at_half <= MOVE_FOR:
        return 0.5
    options = []
    for i in np.flatnonzero(j >= j.max() - 1e-12):
        if i == 0:
            continue
        below = float(cuts[i + 1]) if i + 1 < len(cuts) else -np.inf  # any cut in (below, cuts[i]] reads alike
        options.append(0.5 if below < 0.5 <= cuts[i] else float(cuts[i]) if below == -np.inf
                       else (below + float(cuts[i])) / 2)
    return min(options, key=lambda c: abs(c - 0.5)) if options else 0.5


def cross_validated_verdicts(labels: np.ndarray, scores: np.ndarray, clusters: np.ndarray, folds: int = FOLDS
                             ) -> tuple[np.ndarray, int]:
    """Each text read at the threshold chosen (youden_threshold) on the other folds of clusters; and the number
    of folds (0: too few clusters, read at 0.5)."""
    from sklearn.model_selection import GroupKFold

    k = len(set(clusters))
    if k < 2:
        return (scores >= 0.5).astype(float), 0
    out = np.empty(len(labels))
    splits = min(folds, k)
    for train, test in GroupKFold(n_splits=splits).split(scores, labels, groups=clusters):
        out[test] = scores[test] >= youden_threshold(labels[train], scores[train])
    return out, splits


def card_statistics(labels, verdicts, probabilities, clusters) -> dict:
    """The card of one judge on labelled texts: counts, base rate, AUC of its probability [cluster bootstrap
    CI], sensitivity, specificity and J of its verdicts at a cross-validated threshold [cluster t CIs] and the
    threshold a run reads its items at, and whether it is informative. Texts
    the judge gave no verdict on are counted as `unscored` and left out (never read as a "no")."""
    y = pd.Series(labels).astype(float).to_numpy()
    v = pd.Series(verdicts).map(lambda x: np.nan if x is None or pd.isna(x) else float(x)).to_numpy(dtype=float)
    p = pd.Series(probabilities).map(lambda x: np.nan if x is None or pd.isna(x) else float(x)).to_numpy(dtype=float)
    c = np.asarray(list(clusters)).astype(str)
    read = ~np.isnan(v)
    p = np.where(np.isnan(p), v, p)  # a verdict read from the sampled token: its probability is the verdict
    y, v, p, c = y[read], v[read], p[read], c[read]
    out = {"n": int(read.sum()), "unscored": int((~read).sum()), "base_rate": float(y.mean()) if len(y) else math.nan}
    cv, folds = cross_validated_verdicts(y.astype(int), p, c) if len(y) else (v, 0)
    out |= sens_spec(y, cv, c)
    out |= {"threshold": youden_threshold(y.astype(int), p) if len(y) else 0.5, "threshold_folds": folds}
    auc = _auc(y.astype(int), p) if len(y) else math.nan
    auc_lo, auc_hi = cluster_auc_ci(y.astype(int), p, c) if len(y) else (math.nan, math.nan)
    out |= {"auc": auc, "auc_lo": auc_lo, "auc_hi": auc_hi}
    out["informative"] = bool(auc_lo > 0.5 and out.get("youden_lo", math.nan) > 0)
    return out


def card_corrected_rate(verdicts, clusters, card: dict, level: float = 0.95) -> dict:
    """Rogan–Gladen's rate behind a run's judged verdicts, from the card's sensitivity and specificity, with a
    delta-method interval carrying both the run's and the card's uncertainty (module docstring). NaN where the
    card is not informative (J ≤ 0, or its interval holds 0) or nothing was judged."""
    v = pd.Series(list(verdicts)).map(lambda x: np.nan if x is None or pd.isna(x) else float(x)).to_numpy(float)
    c = np.asarray(list(clusters)).astype(str)
    read = ~np.isnan(v)
    v, c = v[read], c[read]
    nan = {"corrected": math.nan, "corrected_lo": math.nan, "corrected_hi": math.nan, "raw": math.nan,
           "n_items": int(len(v)), "n_clusters": len(set(c))}
    if not len(v) or not card.get("informative"):
        return nan | {"raw": float(v.mean()) if len(v) else math.nan}
    raw = float(v.mean())
    index, k = _codes(c)
    psi = np.bincount(index, weights=(v - raw) / len(v), minlength=k)
    var_raw = floor_variance(k / (k - 1) * float((psi ** 2).sum()), v.sum(), len(v)) if k > 1 else math.nan
    spec, j = card["specificity"], card["youden"]
    rate = (raw + spec - 1) / j
    var = (var_raw + (1 - rate) ** 2 * card["var_spec"] + rate ** 2 * card["var_sens"]
           - 2 * rate * (1 - rate) * card["cov_sens_spec"]) / j ** 2
    half = _t(min(k, card["n_clusters"]) - 1, level) * math.sqrt(max(var, 0.0)) if k > 1 else math.nan
    return nan | {"raw": raw, "corrected": float(np.clip(rate, 0, 1)),
                  "corrected_lo": float(np.clip(rate - half, 0, 1)), "corrected_hi": float(np.clip(rate + half, 0, 1))}


def card_corrected_difference(effect: float, se: float, df: int, card: dict, level: float = 0.95) -> dict:
    """A paired difference of two judged rates, corrected by the card: a judge with sensitivity and specificity
    shrinks every true difference by J (raw difference = J × true difference), so the corrected one is
    effect / J, its variance by the delta method over the effect's (`se`, `df`) and J's from the card."""
    if not card.get("informative") or not se == se:
        return {"corrected": math.nan, "corrected_lo": math.nan, "corrected_hi": math.nan}
    j = card["youden"]
    var_j = card["var_sens"] + card["var_spec"] + 2 * card["cov_sens_spec"]
    value = effect / j
    half = _t(min(df, card["n_clusters"] - 1), level) * math.sqrt(se ** 2 / j ** 2 + effect ** 2 * var_j / j ** 4)
    return {"corrected": float(np.clip(value, -1, 1)), "corrected_lo": float(np.clip(value - half, -1, 1)),
            "corrected_hi": float(np.clip(value + half, -1, 1))}
