"""A judge's card on the shipped labelled texts: computed once per judge model, kept in the home folder.

    card = judge_card("local/qwen2.5-coder-1.5b", "answer_correct", n_texts=40)
    card["informative"], card["auc"], card["sensitivity"], card["line"]

Every run that judges a kind has its judge read that kind's shipped texts (shipped_texts.py) and prints this card
beside its own. The verdicts are kept per judge model in ~/.cache/lclab/judge_cards/<judge>/<kind>.jsonl
($LCLAB_CARD_DIR, card_store.py), one line per text as soon as it is judged and keyed by the exact prompt, so a
second run or a second clone pays nothing and a killed run loses nothing; an embedded judge's verdicts also
come with the repo (shipped_cards.py: read once a few of them judged here agree); the statistics are recomputed
from them and the current labels every time (a label corrected later is read at once). `n_texts` reads a stable
draw of the texts (each class in proportion, in an order fixed by each text's key, so labels added later do not
reshuffle it): a first run can read 40 per kind, a later one all of them, reusing every verdict already kept.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Callable

import pandas as pd

from ..recoveries import appending
from ..stats.card import card_statistics
from . import shipped_cards
from .card_store import judging, kept_verdicts, prompt_id, store_path
from .score_eval import paired_auc_difference
from .shipped_texts import KINDS

CARD_COLUMNS = ["kind", "judge", "n_texts", "n", "n_clusters", "unscored", "base_rate", "auc", "auc_lo", "auc_hi",
                "sensitivity", "sensitivity_lo", "sensitivity_hi", "specificity", "specificity_lo",
                "specificity_hi", "youden", "youden_lo", "youden_hi", "threshold", "threshold_folds", "baseline",
                "baseline_auc",
                "auc_vs_baseline", "auc_vs_baseline_lo", "auc_vs_baseline_hi", "informative", "line"]


def card_texts(kind: str, n_texts: int | None = None) -> pd.DataFrame:
    """The texts a card reads: all of the kind's, or `n_texts` of them, each class in proportion (at least 3 of
    each where there are), in the order of a hash of each text's key."""
    texts = KINDS[kind].texts()
    if not n_texts or n_texts >= len(texts):
        return texts
    order = texts["key"].map(lambda k: hashlib.sha256(f"card:{k}".encode()).hexdigest())
    texts = texts.assign(_order=order).sort_values("_order")
    share = texts["label"].mean()
    n_pos = min(int(texts["label"].sum()), max(3, round(n_texts * share)))
    n_neg = min(int((texts["label"] == 0).sum()), max(3, n_texts - n_pos))
    chosen = pd.concat([texts[texts["label"] == 1].head(n_pos), texts[texts["label"] == 0].head(n_neg)])
    return chosen.drop(columns="_order").sort_index().reset_index(drop=True)


def prompts_to_judge(judge: str, kind: str, n_texts: int | None = None) -> list[str]:
    """The exact prompts a card still has to send (what a plan prices): before this machine has checked the
    shipped verdicts, their check texts, assuming they agree."""
    k = KINDS[kind]
    prompts = [k.prompt(r) for r in card_texts(kind, n_texts).itertuples(index=False)]
    checked = set(shipped_cards.to_check(judge, kind, [prompt_id(p) for p in prompts]))
    kept = {p: v for p, v in shipped_cards.usable(judge, kind, assume_agreement=True).items() if p not in checked}
    kept |= kept_verdicts(judge, kind)
    return [p for p in prompts if prompt_id(p) not in kept]


def _judge_missing(judge: str, kind: str, texts: pd.DataFrame, kept: dict, progress: bool) -> dict:
    k = KINDS[kind]
    prompts = [(k.prompt(r), r) for r in texts.itertuples(index=False)]
    if all(prompt_id(p) in kept for p, _ in prompts):
        return kept
    path = store_path(judge, kind)
    with judging(path):
        kept |= kept_verdicts(judge, kind)  # what another process judged while this one waited for the lock
        # Sorted by prompt: texts that share a prefix (the same passages, the same premise) follow each other.
        todo = sorted({prompt_id(p): (p, r) for p, r in prompts if prompt_id(p) not in kept}.values(),
                      key=lambda t: t[0])
        return _judged(judge, k, todo, path, kept, progress)


def _judged(judge: str, k, todo: list, path: Path, kept: dict, progress: bool) -> dict:
    """`kept` with every prompt of `todo` judged, each verdict appended to `path` as soon as it is made."""
    from tqdm.auto import tqdm

    from ..models import LLMError

    for prompt, r in tqdm(todo, desc=f"judge card: {k.name}", disable=not progress or not todo):
        try:
            got = k.judge(judge, r)
            row = {"prompt": prompt_id(prompt), "key": r.key, "verdict": got.value,
                   "p": got.metadata.get("p"), "source": got.metadata.get("source"), "unscored": got.unscored}
        except LLMError as err:  # one failed call: this text unscored (counted), the others still read
            row = {"prompt": prompt_id(prompt), "key": r.key, "verdict": None, "p": None, "source": None,
                   "unscored": f"{type(err).__name__}: {err}"}
        if row["verdict"] is not None or row["source"] is not None:  # a call that failed is asked again next time
            with appending(path) as fh:  # a verdict line a kill cut short is moved aside first (recoveries)
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        kept[row["prompt"]] = row
    return kept


def judge_card(judge: str, kind: str, n_texts: int | None = None, progress: bool = True) -> dict:
    """The judge's card on `kind`'s shipped texts (CARD_COLUMNS), judging first the texts not yet kept."""
    k = KINDS[kind]
    texts = card_texts(kind, n_texts)
    kept = kept_verdicts(judge, kind)
    ids = [prompt_id(k.prompt(r)) for r in texts.itertuples(index=False)]
    if checked := shipped_cards.to_check(judge, kind, ids):  # a first card here: are the shipped verdicts ours?
        kept = _judge_missing(judge, kind, texts[[i in checked for i in ids]], kept, progress)
        shipped_cards.record_check(judge, kind, checked, kept)
    kept = _judge_missing(judge, kind, texts, shipped_cards.usable(judge, kind) | kept, progress)
    rows = [kept.get(i, {}) for i in ids]
    verdicts = pd.Series([None if r.get("verdict") is None else float(r["verdict"]) for r in rows], dtype=object)
    probabilities = pd.Series([r.get("p") for r in rows], dtype=object)
    stats = card_statistics(texts["label"], verdicts, probabilities, texts["cluster"])
    baseline = texts.apply(lambda r: k.baseline_score(r), axis=1).astype(float)
    scores = probabilities.where(probabilities.notna(), verdicts).astype(float)
    versus = paired_auc_difference(texts["label"], scores, baseline.fillna(0.0), clusters=texts["cluster"])
    card = {"kind": kind, "judge": judge, "n_texts": len(texts), **stats, "baseline": k.baseline,
            "baseline_auc": versus["auc_b"], "auc_vs_baseline": versus["difference"],
            "auc_vs_baseline_lo": versus["difference_lo"], "auc_vs_baseline_hi": versus["difference_hi"]}
    return card | {"line": card_line(card)}


def card_line(card: dict) -> str:
    """One line: what the card says, with its intervals and its unit."""
    def ci(name: str) -> str:
        return f"{card[name]:.2f} [{card[f'{name}_lo']:.2f}, {card[f'{name}_hi']:.2f}]"

    if not card.get("n") or any(math.isnan(card.get(x, math.nan)) for x in ("auc", "sensitivity")):
        return (f"shipped card ({card['kind']}, {card.get('n', 0)} texts): cannot be read (one class only or "
                "no verdict); the judge is read as uninformative")
    verdict = "informative" if card["informative"] else "UNINFORMATIVE (no better than chance)"
    cut = (f"at p ≥ {card['threshold']:.2f}, chosen by {card['threshold_folds']}-fold cross-validation over clusters"
           if card.get("threshold_folds") else "at p ≥ 0.50 (too few clusters to choose)")
    return (f"shipped card ({card['kind']}, {card['n']} texts, {card['n_clusters']} clusters): AUC {ci('auc')}, "
            f"sensitivity {ci('sensitivity')}, specificity {ci('specificity')}, J {ci('youden')} ({cut}); "
            f"{card['baseline']} AUC {card['baseline_auc']:.2f}: {verdict}")


def card_rows(experiment: str, judge, *kinds: str) -> Callable[[str, object], list[dict]]:
    """The plan rows of the cards a run reads: for each kind, the card of the model its `judge` stage calls under
    the run's parameters, on `p.card_texts` texts (an Experiment's `cards`)."""
    return lambda notebook, p: [planned_card(notebook, experiment, judge.model(p), kind, p.card_texts)
                                for kind in kinds]


def planned_card(notebook: str, experiment: str, judge: str, kind: str, n_texts: int = 0) -> dict:
    """The judge's card on `kind`'s shipped texts (lclab.scoring.judge_card): the texts not yet kept for this
    judge, priced in prompt order as the card sends them; a text another notebook of the same plan already
    judges is counted there only (one card per judge and kind, kept in the home folder)."""
    from ..models import Request
    from ..planning.plan import priced_once
    from ..planning.priced import named, planned_replies

    prompts = sorted(priced_once("judge card", judge, prompts_to_judge(judge, kind, n_texts or None)))
    # The card's verdicts are kept in its own store, so these prompts are the ones not judged yet; the request
    # prices the reply only.
    return named(planned_replies(notebook, experiment, "judge card", judge, prompts,
                                 Request(max_tokens=KINDS[kind].max_tokens), reuse_prefix=judge.startswith("local/")),
                 f"judge card ({kind})")
