"""Design before running: what a run's n can show, said by `--plan` before any model is called.

For each experiment that declares its primary comparison (`Experiment.design`), the plan prints the
independent units the run will have, the 95 % half-width expected for the paired difference at that n, the
smallest effect it detects with 80 % power, and the n a target half-width needs. The spread comes from the
latest earlier run of the same experiment (the SD of its per-cluster differences for that comparison), or,
where none exists, from a stated prior.
"""

from __future__ import annotations

import math

import pandas as pd

from .. import paths
from ..experiments import Experiment, for_notebook

# SD of per-cluster paired differences of a yes/no outcome assumed when no earlier run exists: a middle
# guess (identical outcomes give 0, outcomes that disagree at random near 50 % give about 0.7).
PRIOR_SD = 0.5
MIN_UNITS = 10  # below this, say that the run is too small to tell most effects from 0


def measured_sd(experiment: Experiment, contrast: tuple) -> tuple[float, str] | None:
    """(SD of the per-cluster differences for `contrast`, which run it came from) in the latest earlier run."""
    series, (column, a, b) = experiment.series, contrast
    if series is None or series.cluster is None:
        return None
    logs = sorted((paths.RESULTS / experiment.name).glob("*/result_items.jsonl"), key=lambda f: f.stat().st_mtime)
    for log in reversed(logs):
        rows = pd.read_json(log, lines=True, dtype=False, precise_float=True)
        rows = series.prepare(rows) if series.prepare else rows
        if not {column, series.cluster, series.value} <= set(rows.columns):
            continue
        rows = rows.dropna(subset=[series.value]).assign(v=lambda d: d[series.value].astype(float))
        per = rows[rows[column].isin([a, b])].groupby([series.cluster, column])["v"].mean().unstack()
        if a in per and b in per and (d := (per[a] - per[b]).dropna()).size >= 3:
            return float(d.std(ddof=1)), f"run {log.parent.name}, {d.size} {series.unit}"
    return None


def units_for(sd: float, target: float) -> int:
    """The fewest clusters whose 95 % t interval of the mean difference is at most ±target (the interval the
    comparison draws: t with n − 1 degrees of freedom, not the normal's 1.96)."""
    from scipy.stats import t as student_t

    n = max(2, math.ceil((1.96 * sd / target) ** 2))  # the normal approximation: a lower bound
    while student_t.ppf(0.975, n - 1) * sd / math.sqrt(n) > target:
        n += 1
    return n


def design_line(notebook: str, params: dict, target: float = 0.10) -> str | None:
    """One paragraph for the plan: units, expected half-width, detectable effect, n for the target."""
    from scipy.stats import t as student_t
    from statsmodels.stats.power import TTestPower

    experiment = for_notebook(notebook)
    if experiment is None or experiment.design is None:
        return None
    d = experiment.design(params)
    if d.contrast[1] == d.contrast[2]:
        return f"{notebook}: one {d.contrast[0]} value only ({d.contrast[1]}): no comparison to size"
    found = measured_sd(experiment, d.contrast)
    sd, source = found if found else (PRIOR_SD, "stated prior, no earlier run")
    if sd == 0:  # every earlier cluster came out the same in both arms: no spread to size a new run by
        sd, source = PRIOR_SD, f"stated prior: {source} had no spread, SD 0.00"
    head = f"{notebook}: {d.units} {d.unit} ({d.items_per_unit} items each) for {d.comparison}"
    if d.units < 2:
        return head + f": the spread cannot be estimated (SD {sd:.2f}, {source})"
    half = student_t.ppf(0.975, d.units - 1) * sd / math.sqrt(d.units)
    detectable = TTestPower().solve_power(nobs=d.units, power=0.8, alpha=0.05, alternative="two-sided") * sd
    needed = units_for(sd, target)
    # A difference of two rates lies in [-1, 1]: an interval or an effect past 1 says nothing.
    half_text = f"±{half:.2f}" if half < 1 else "past ±1 (uninformative)"
    power_text = f"|effect| ≥ {detectable:.2f}" if detectable < 1 else "no effect a difference of rates can have"
    line = (f"{head}: expected 95 % half-width {half_text}; 80 % power detects {power_text} "
            f"(SD of per-cluster differences {sd:.2f}: {source}); a half-width of ±{target:.2f} needs about "
            f"{needed} {d.unit}")
    if d.units < MIN_UNITS:
        line += f". With fewer than {MIN_UNITS} {d.unit} this run can tell only large effects from 0"
    return line


# The judge assumed when no earlier run's card has labels: a true rate of 0.5, a judge that finds 80 % of the
# true positives and clears 90 % of the negatives (the example of docs/trusting-the-numbers.md).
PRIOR_JUDGE = {"base_rate": 0.5, "sensitivity": 0.8, "specificity": 0.9}
LABEL_COUNTS = (30, 60, 120)


def measured_judge(experiment: Experiment) -> tuple[dict, str] | None:
    """The base rate, sensitivity and specificity of the experiment's judged rate on the latest earlier card
    with at least 10 labels, and which run it came from."""
    cards = sorted((paths.RESULTS / experiment.name).glob("*/reliability.csv"), key=lambda f: f.stat().st_mtime)
    for path in reversed(cards):
        table = pd.read_csv(path)
        row = table[table["metric"] == experiment.judged_rate]
        if len(row) and {"sensitivity", "specificity"} <= set(row) and row.iloc[0]["n_labelled"] >= 10 \
                and row.iloc[0][["base_rate", "sensitivity", "specificity"]].notna().all():
            r = row.iloc[0]
            return ({k: float(r[k]) for k in PRIOR_JUDGE}, f"run {path.parent.name}, {int(r['n_labelled'])} labels")
    return None


def ppi_half_width(judged: int, labels: int, base_rate: float, sensitivity: float, specificity: float) -> float:
    """The expected 95 % half-width of the PPI++ estimate of a rate from `judged` verdicts and `labels` random
    labels among them, from PPI++'s asymptotic variance with its optimal tuning (Angelopoulos et al. 2023):
    Var(Y)/n − Cov(Y, f)² / (n Var(f) (1 + n/N)), with the judge's moments implied by its sensitivity and
    specificity; Student's t with n − 1 df, as the lab's interval uses."""
    from scipy.stats import t as student_t

    p, n, big_n = base_rate, labels, max(judged - labels, 1)
    q = p * sensitivity + (1 - p) * (1 - specificity)  # the judge's own rate
    cov, var_f = p * sensitivity - p * q, q * (1 - q)
    variance = p * (1 - p) / n - (cov ** 2 / (n * var_f * (1 + n / big_n)) if var_f > 0 else 0.0)
    return float(student_t.ppf(0.975, n - 1) * math.sqrt(max(variance, 0.0)))


def labels_line(notebook: str, params: dict) -> str | None:
    """For an experiment with a judged headline rate: how wide its corrected interval is with 30, 60 and 120
    labels (0 labels: the judge's own rate, biased by what the judge gets wrong)."""
    experiment = for_notebook(notebook)
    if experiment is None or experiment.judged_rate is None or experiment.design is None:
        return None
    d = experiment.design(params)
    judged = d.units * d.items_per_unit
    found = measured_judge(experiment)
    judge, source = found if found else (PRIOR_JUDGE, "stated prior, no earlier labelled card")
    widths = ", ".join(f"{n}: ±{ppi_half_width(judged, n, **judge):.2f}" for n in LABEL_COUNTS if n < judged)
    shown = ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in judge.items())
    return (f"{notebook}: {experiment.judged_rate} over about {judged} judged texts: with 0 labels only the judge's "
            f"own rate (not the truth); corrected by PPI++ with random labels ({widths or 'too few texts'}) "
            f"[{shown}: {source}]")
