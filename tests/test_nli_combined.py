"""The combined NLI score on planted data with a known answer: two scorers that each see one kind of error,
and a logistic regression cross-fitted by item that sees both."""

import numpy as np
import pandas as pd
from lclab.nli.combined import COMBINED, combined_table, cross_fitted, with_combined
from lclab.scoring.score_eval import separation_summary


def planted(n_items: int = 60, seed: int = 0) -> pd.DataFrame:
    # Per item, 4 sentences: supported (1), a swapped number (0: its words all overlap, the model's p is low), a
    # loose paraphrase (1: the model is unsure, overlap is high) and an off-topic claim (0: the model is as unsure,
    # overlap is low). p alone cannot tell the last two apart, overlap alone not the first two.
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        for kind, label, p, overlap in (("supported", 1, 0.8, 0.9), ("swapped", 0, 0.3, 0.9),
                                        ("paraphrase", 1, 0.55, 0.85), ("off topic", 0, 0.55, 0.2)):
            rows.append({"item_id": f"i{i}", "kind": kind, "entailed": label,
                         "estimate_p": float(np.clip(p + rng.normal(0, 0.08), 0, 1)),
                         "overlap": float(np.clip(overlap + rng.normal(0, 0.08), 0, 1))})
    return pd.DataFrame(rows)


def test_the_combined_score_beats_each_scorer_where_each_fails_in_a_different_place():
    hyp = planted()
    y = hyp["entailed"].to_numpy(dtype=float)
    combined = cross_fitted(hyp[["estimate_p", "overlap"]].to_numpy(), y, hyp["item_id"].to_numpy())
    assert not np.isnan(combined).any()
    auc = {name: separation_summary(y.astype(int), pd.Series(s))["auc"]
           for name, s in (("p", hyp["estimate_p"]), ("overlap", hyp["overlap"]), ("combined", combined))}
    assert auc["combined"] > max(auc["p"], auc["overlap"]) + 0.05, auc

    table = combined_table(hyp.assign(direction="context_answer", model="m", combined_p=combined,
                                      sentence="", premise=""), ["model"])
    row = table.iloc[0]
    assert row["items"] == 60 and row["n_labelled"] == 240
    assert row["lo_vs_p"] > 0 and row["lo_vs_overlap"] > 0  # the paired intervals (by item) exclude 0


def test_no_item_is_scored_by_a_model_fitted_on_it():
    # One item only: there is no other item to fit on, so nothing is scored (rather than scored in-sample).
    hyp = planted(n_items=1)
    out = cross_fitted(hyp[["estimate_p", "overlap"]].to_numpy(), hyp["entailed"].to_numpy(dtype=float),
                       hyp["item_id"].to_numpy())
    assert np.isnan(out).all()


def test_too_few_labelled_sentences_get_no_combined_score_and_say_why():
    # 4 items x 4 sentences: 8 of each class, under MIN_PER_CLASS. Pooled out-of-fold scores from fits on a few
    # points anti-rank (a quick run's 8 items gave a combined AUC of 0.00): nothing is scored, and the table says so.
    hyp = planted(n_items=4)
    out = cross_fitted(hyp[["estimate_p", "overlap"]].to_numpy(), hyp["entailed"].to_numpy(dtype=float),
                       hyp["item_id"].to_numpy())
    assert np.isnan(out).all()
    table = combined_table(hyp.assign(direction="context_answer", model="m", combined_p=out, sentence="",
                                      premise=""), ["model"])
    assert table.iloc[0]["note"].startswith("not fitted: 8 unsupported and 8 supported")


def test_a_mix_is_the_score_to_use_only_when_it_beats_p_supported_out_of_fold():
    # Where each scorer sees one kind of error, a mix wins and the table says to use it.
    both = with_combined(planted().assign(direction="context_answer", model="m", sentence="", premise=""), ["model"])
    row = combined_table(both, ["model"]).iloc[0]
    assert row["combined_vs_p"] == "beats" and row["score_to_use"] == COMBINED
    assert row["gated_vs_p"] == "beats" and row["auc_gated"] > row["auc_p_supported"]
    # Where p(supported) already separates and the words are noise, no mix beats it: p(supported) is read.
    rng = np.random.default_rng(5)
    rows = [{"item_id": f"i{i}", "entailed": label, "estimate_p": float(np.clip(p + rng.normal(0, 0.1), 0, 1)),
             "overlap": float(rng.uniform(0, 1))}
            for i in range(40) for label, p in ((1, 0.8), (0, 0.2), (1, 0.65), (0, 0.35))]
    noisy = with_combined(pd.DataFrame(rows).assign(direction="context_answer", model="m", sentence="",
                                                    premise=""), ["model"])
    row = combined_table(noisy, ["model"]).iloc[0]
    assert row["combined_vs_p"] != "beats" and row["gated_vs_p"] != "beats"
    assert row["score_to_use"] == "p(supported)"
