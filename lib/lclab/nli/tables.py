"""The NLI evaluation's tables: ROC AUC per configuration, direction and scorer; refusal accuracy; the seed's two
tables; the reliability cards of the fact tags and the refusal tags, each beside a judge-free baseline."""

from __future__ import annotations

import pandas as pd

from ..scoring.baselines import content_overlap
from ..scoring.refusal import refusal_cue
from ..scoring.reliability import Replies, card, cards
from ..scoring.score_eval import separation_summary
from ..stats.clusters import cluster_mean_ci
from .combined import COMBINED
from .items import DIRECTION_NAMES, DIRECTIONS

# How a hypothesis is scored: the share of its facts tagged supported (the seed's), or the mean probability of
# "supported" read at the tags' first tokens (for the "probability" variant, the one-token p(supported)).
SCORERS = {"estimate": "tags (share supported)", "estimate_p": "p(supported)"}
CONFIG_COLUMNS = ["model", "prompt", "concurrency"]


def auc_table(hyp: pd.DataFrame) -> pd.DataFrame:
    """ROC AUC of the hypothesis estimates against the labels, per configuration and direction; its interval
    resamples items (the sentences of one answer are not independent).

    Hypotheses without an estimate (failed call, no facts) are counted as
    `unscored`, never scored 0; unlabelled ones are counted and left out.
    """
    rows = []
    for keys, part in hyp.groupby(CONFIG_COLUMNS, sort=False):
        for scorer, name in ((c, n) for c, n in SCORERS.items() if c in part):
            for d in DIRECTIONS:
                sub = part[part.direction == d]
                labelled = sub[sub.entailed.notna()]
                s = separation_summary(labelled.entailed.astype(int), labelled[scorer].astype(float),
                                       clusters=labelled.item_id.astype(str))  # an answer's sentences together
                rows.append({**dict(zip(CONFIG_COLUMNS, keys)), "scorer": name, "direction": DIRECTION_NAMES[d],
                             "unlabelled": int(sub.entailed.isna().sum()), **s})
    return pd.DataFrame(rows)


def refusal_table(items: pd.DataFrame, refusal_labels: pd.DataFrame) -> pd.DataFrame:
    """Refusal-tagging accuracy per configuration over answers and ground truths, with a 95 % interval over items
    (an item's answer and ground truth are one unit: stats.clusters.cluster_mean_ci)."""
    truth = {(r.item_id, r.text): r.refusal for r in refusal_labels.itertuples()}
    rows = []
    for keys, part in items.groupby(CONFIG_COLUMNS, sort=False):
        pairs = []
        for r in part.itertuples():
            for text, col in (("answer", "answer_refusal"), ("ground_truth", "gt_refusal")):
                if (r.item_id, text) in truth:
                    pairs.append((truth[(r.item_id, text)], getattr(r, col), r.item_id))
        tagged = [(y, bool(p), item) for y, p, item in pairs if p is not None and not pd.isna(p)]
        hits = [float(int(y) == int(p)) for y, p, _ in tagged]
        correct = sum(hits)
        interval = cluster_mean_ci(hits, [item for *_, item in tagged])
        lo, hi = interval["lo"], interval["hi"]
        rows.append({**dict(zip(CONFIG_COLUMNS, keys)), "labelled_texts": len(pairs), "untagged": len(pairs) - len(tagged),
                     "refusals": sum(y for y, *_ in pairs),
                     "accuracy": correct / len(tagged) if tagged else float("nan"),
                     "accuracy_lo": lo, "accuracy_hi": hi,
                     "missed_refusals": sum(1 for y, p, _ in tagged if y and not p),
                     "false_refusals": sum(1 for y, p, _ in tagged if p and not y)})
    return pd.DataFrame(rows)


def seed_auc_table(auc: pd.DataFrame) -> pd.DataFrame:
    """The seed's second table: one row per configuration, one 'AUC [lo, hi]' column per direction."""
    cell = auc.assign(cell=[f"{a:.3f} [{lo:.2f}, {hi:.2f}]" for a, lo, hi in zip(auc.auc, auc.auc_lo, auc.auc_hi)])
    wide = cell.pivot_table(index=[*CONFIG_COLUMNS, "scorer"], columns="direction", values="cell", aggfunc="first",
                            sort=False)
    return wide[[DIRECTION_NAMES[d] for d in DIRECTIONS]].reset_index()


def seed_timing_table(timing: pd.DataFrame) -> pd.DataFrame:
    """The seed's first table: times as mm:ss, tokens per configuration."""
    def mmss(s):
        return f"{int(s // 60):02d}:{s % 60:04.1f}"
    return pd.DataFrame({
        "LLM model": timing.model, "prompt": timing.prompt, "concurrency": timing.concurrency,
        "time transforming": timing.transform_s.map(mmss), "time getting NLI": timing.nli_s.map(mmss),
        "input tokens": timing.input_tokens, "output tokens": timing.output_tokens,
        "total tokens": timing.total_tokens, "calls": timing.transform_calls + timing.nli_calls,
        "cache hits": timing.transform_cache_hits + timing.nli_cache_hits, "times from": timing.times_from})


def by_kind(item_df: pd.DataFrame, kinds: dict[str, str]) -> pd.DataFrame:
    """Mean estimate and refusal tag by the kind of item, per configuration and direction."""
    if not kinds:
        return pd.DataFrame()
    columns = [*DIRECTIONS, "answer_refusal"]
    tagged = item_df.assign(kind=item_df.item_id.map(kinds)).dropna(subset=["kind"])
    tagged[columns] = tagged[columns].apply(pd.to_numeric, errors="coerce")  # refusal tags: bools or None
    return tagged.groupby([*CONFIG_COLUMNS, "kind"])[columns].mean().round(2)


def nli_cards(hyp: pd.DataFrame, items: pd.DataFrame, refusal_labels: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: the card of the fact tags in each direction (verdict: at least half of the facts
    supported; probability: mean p(supported); baseline: the hypothesis's content words found in the premise)
    and the card of the refusal tags (baseline: a refusal phrase in the text)."""
    rows = []
    truth = refusal_labels.set_index(["item_id", "text"])["refusal"]
    for keys, part in hyp.groupby(CONFIG_COLUMNS, sort=False):
        name = " | ".join(str(k) for k in keys)
        for d in DIRECTIONS:
            sub = part[part.direction == d]
            verdicts = sub.estimate.map(lambda e: None if pd.isna(e) else bool(e >= 0.5))
            overlap = [content_overlap(h, p) for h, p in zip(sub.sentence, sub.premise)]
            rows.append(card(f"NLI {DIRECTION_NAMES[d]}", name, Replies(verdicts, sub.estimate_p, sub.estimate_source),
                             sub.entailed, "hypothesis words in the premise", pd.Series(overlap, dtype=float)))
            if "combined_p" in sub and sub.combined_p.notna().any():  # lclab.nli.combined (needs p(supported))
                combined = sub.combined_p.map(lambda p: None if pd.isna(p) else bool(p >= 0.5))
                rows.append(card(f"NLI {DIRECTION_NAMES[d]}, {COMBINED}", name,
                                 Replies(combined, sub.combined_p, pd.Series(["combined"] * len(sub))), sub.entailed,
                                 "hypothesis words in the premise", pd.Series(overlap, dtype=float)))
        own = items[(items[CONFIG_COLUMNS] == pd.Series(dict(zip(CONFIG_COLUMNS, keys)))).all(axis=1)]
        texts = [(r.item_id, text, getattr(r, col), getattr(r, f"{col}_p"), cue, getattr(r, f"{col}_source"))
                 for r in own.itertuples() for text, col, cue in
                 (("answer", "answer_refusal", r.answer_text), ("ground_truth", "gt_refusal", r.gt_text))]
        rows.append(card("refusal tags", name, Replies(pd.Series([t[2] for t in texts], dtype=object),
                                                       pd.Series([t[3] for t in texts], dtype=float),
                                                       pd.Series([t[5] for t in texts], dtype=object)),
                         pd.Series([truth.get((t[0], t[1])) for t in texts], dtype=float),
                         "a refusal phrase in the text", pd.Series([refusal_cue(t[4]).value for t in texts])))
    return cards(rows)
