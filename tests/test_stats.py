import math

import pandas as pd
import pytest

from lclab.stats import proportion_summary, wilson_interval


def test_wilson_hand_computed():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 8)
    assert lo == 0.0 and hi == pytest.approx(0.3244, abs=1e-4)
    lo, hi = wilson_interval(8, 8)
    assert hi == 1.0 and lo == pytest.approx(0.6756, abs=1e-4)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


def test_summary_counts_missing_separately():
    df = pd.DataFrame({"depth": [0, 0, 0, 50, 50], "ok": [True, False, None, True, True]})
    s = proportion_summary(df, ["depth"], "ok", "judge").set_index("depth")
    assert s.loc[0, "judge_n"] == 2 and s.loc[0, "judge_acc"] == 0.5 and s.loc[0, "judge_missing"] == 1
    assert s.loc[50, "judge_acc"] == 1.0 and s.loc[50, "judge_missing"] == 0
