"""A judged rate follows the labels: the card with none, PPI++ with some (10 or more), the labels' own rate when
every judged item is labelled (PPI++ has nothing left to correct then, and once returned NaN, so the headline fell
back to the card), for the headline and for each cell alike."""

import numpy as np
import pandas as pd
import pytest
from lclab.models.judge_choice import Judge
from lclab.scoring.judge_reading import CARD_ASSUMPTION, Reading
from lclab.stats.clusters import cluster_mean_ci

CARD = {"informative": True, "sensitivity": 0.9, "specificity": 0.85, "youden": 0.75, "var_sens": 0.001,
        "var_spec": 0.001, "cov_sens_spec": 0.0, "n_clusters": 20}


def items(n_clusters: int = 15, per: int = 2, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.random(n_clusters * per) < 0.6
    verdict = np.where(rng.random(len(truth)) < 0.85, truth, ~truth)
    return pd.DataFrame({"cluster": np.repeat(np.arange(n_clusters), per).astype(str),
                         "verdict": verdict.astype(float),
                         "truth": truth.astype(float), "cell": np.tile(["a", "b"], n_clusters * per // 2)})


@pytest.mark.parametrize("informative", [True, False])
def test_none_some_and_all_labelled(informative):
    reading = Reading("answer_correct", Judge("fake/judge", False, "named"), CARD | {"informative": informative})
    rows = items()
    none = reading.rate(rows["verdict"], rows["cluster"])
    some = reading.rate(rows["verdict"], rows["cluster"], rows["truth"].where(rows.index % 2 == 0))
    every = reading.rate(rows["verdict"], rows["cluster"], rows["truth"])
    expected = cluster_mean_ci(rows["truth"], rows["cluster"])
    assert every["estimate"] == pytest.approx(rows["truth"].mean()) and every["read_as"].startswith("the labels' own")
    assert (every["lo"], every["hi"]) == pytest.approx((expected["lo"], expected["hi"]))
    if informative:
        assert none["read_as"] == CARD_ASSUMPTION
        assert some["read_as"].startswith("PPI++ from 15 labels") and some["estimate"] != every["estimate"]
    else:  # the judge cannot tell: nothing judged is read, but a census of labels needs no judge
        assert np.isnan(none["estimate"]) and np.isnan(some["estimate"])
    cells = reading.cell_rates(rows, ["cell"], "verdict", "cluster", rows["truth"])
    for cell, part in rows.groupby("cell"):
        assert cells.set_index("cell").loc[cell, "corrected"] == pytest.approx(part["truth"].mean())
