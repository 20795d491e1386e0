"""The NLI answer evaluation against manual labels: the labelled set, configurations, the two seed tables.

    items = load_items("data/nli_eval/items.jsonl")
    labels = load_labels("data/nli_eval", items)
    result = run_configs(items, labels, configs=[{"model": ..., "variant": "separated", "concurrency": 1}], ...)
    result.timing    # seed table 1: time transforming / getting NLI, tokens, per configuration
    result.auc       # seed table 2: ROC AUC [95 % CI] per direction, per configuration
    result.refusal   # refusal-tagging accuracy per configuration

Labels attach to the hypothesis sentences as sentence conversion makes them
(before pronoun replacement); a label whose sentence text no longer matches is
an error, never a silent shift onto a neighbouring sentence.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .nli_pipeline import VARIANTS
from .nli_run import DIRECTIONS, DIRECTION_NAMES, ORDERS, EvalItem, prepare, run_nli
from .paths import repo_path
from .prompts import template
from .runs import ItemLog, fingerprint, run_dir
from .score_eval import separation_summary
from .stats import wilson_interval
from .tables import read_hand_table

EXPERIMENT = "nli_eval"
ITEM_FIELDS = ("item_id", "context", "question", "ground_truth", "answer")
HYPOTHESIS_COLUMNS = ("item_id", "direction", "index", "sentence", "entailed")
REFUSAL_COLUMNS = ("item_id", "text", "refusal")
PROMPTS = ("nli_system", "nli_refusal_system", "nli_pair", "pronoun_replacement", "refusal_batch")


def load_items(path: str | Path) -> list[EvalItem]:
    """Items from a JSONL file: item_id, context, question, ground_truth, answer (strings); document optional.

    An empty answer or ground truth is allowed (the run reports it); a missing
    field, a non-string value or a repeated id is an error naming the line.
    """
    path = repo_path(path)
    if not path.exists():
        raise FileNotFoundError(f"item file {path} does not exist")
    items, seen, problems = [], set(), []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(f"line {n}: not JSON ({err.msg})")
            continue
        bad = [f for f in ITEM_FIELDS if not isinstance(obj.get(f), str)]
        if bad:
            problems.append(f"line {n} ({obj.get('item_id', '?')}): missing or non-string {bad}")
            continue
        if obj["item_id"] in seen:
            problems.append(f"line {n}: item_id {obj['item_id']!r} repeats an earlier line")
        seen.add(obj["item_id"])
        items.append(EvalItem(**{f: obj[f] for f in ITEM_FIELDS}, document=str(obj.get("document") or "")))
    if problems:
        raise ValueError(f"{path}: " + "; ".join(problems))
    if not items:
        raise ValueError(f"{path} holds no items")
    return items


@dataclass(frozen=True)
class Labels:
    hypotheses: pd.DataFrame  # item_id, direction, index, sentence, entailed (0/1)
    refusals: pd.DataFrame  # item_id, text ("answer" / "ground_truth"), refusal (0/1)


def _binary(df: pd.DataFrame, column: str, path: Path) -> pd.Series:
    bad = [f"row {i + 2} ({r['item_id']}): {column} {r[column]!r}" for i, r in df.iterrows()
           if r[column].strip() not in ("0", "1")]
    if bad:
        raise ValueError(f"{path}: {column} must be 0 or 1: " + "; ".join(bad[:10]))
    return df[column].str.strip().astype(int)


def load_labels(directory: str | Path, items: list[EvalItem], language: str = "english") -> Labels:
    """hypothesis_labels.csv and refusal_labels.csv, checked against the items' sentences."""
    directory = repo_path(directory)
    hyp_path, ref_path = directory / "hypothesis_labels.csv", directory / "refusal_labels.csv"
    hyp = read_hand_table(hyp_path, HYPOTHESIS_COLUMNS, "hypothesis label file")
    ref = read_hand_table(ref_path, REFUSAL_COLUMNS, "refusal label file")
    hyp["entailed"] = _binary(hyp, "entailed", hyp_path)
    ref["refusal"] = _binary(ref, "refusal", ref_path)

    texts = {}
    for it in items:
        p = prepare(it, language)
        texts[it.item_id] = {"context_answer": p.answer_raw, "gt_answer": p.answer_raw, "answer_gt": p.gt_raw}
    problems = []
    for i, r in hyp.iterrows():
        where = f"row {i + 2} ({r['item_id']}, {r['direction']}, {r['index']})"
        if r["item_id"] not in texts:
            problems.append(f"{where}: no such item")
        elif r["direction"] not in DIRECTIONS:
            problems.append(f"{where}: direction must be one of {DIRECTIONS}")
        elif not r["index"].isdigit() or int(r["index"]) >= len(texts[r["item_id"]][r["direction"]]):
            problems.append(f"{where}: the hypothesis has {len(texts[r['item_id']][r['direction']])} sentences")
        elif texts[r["item_id"]][r["direction"]][int(r["index"])] != r["sentence"]:
            problems.append(f"{where}: the labelled sentence {r['sentence']!r} is not the item's sentence "
                            f"{texts[r['item_id']][r['direction']][int(r['index'])]!r} (was the item edited?)")
    bad_ref = [f"row {i + 2} ({r['item_id']})" for i, r in ref.iterrows()
               if r["item_id"] not in texts or r["text"] not in ("answer", "ground_truth")]
    if bad_ref:
        problems.append(f"{ref_path.name}: unknown item or text (answer / ground_truth) in " + ", ".join(bad_ref))
    if problems:
        raise ValueError(f"{hyp_path}: " + "; ".join(problems[:10]))
    hyp["index"] = hyp["index"].astype(int)
    if hyp.duplicated(["item_id", "direction", "index"]).any():
        raise ValueError(f"{hyp_path}: a hypothesis is labelled twice")
    return Labels(hyp, ref)


# -- configurations -----------------------------------------------------------

def config_label(config: dict) -> str:
    return f"{config['model']} | {config['variant']} | concurrency {config['concurrency']}"


def check_configs(configs: list[dict]) -> list[dict]:
    out = []
    for i, c in enumerate(configs):
        unknown = set(c) - {"model", "variant", "concurrency"}
        if unknown or "model" not in c:
            raise ValueError(f"configs[{i}] = {c!r}: give model, and optionally variant and concurrency "
                             f"(unknown keys: {sorted(unknown)})")
        c = {"variant": "separated", "concurrency": 1, **c}
        if c["variant"] not in VARIANTS:
            raise ValueError(f"configs[{i}]: variant must be one of {VARIANTS}, got {c['variant']!r}")
        if not isinstance(c["concurrency"], int) or c["concurrency"] < 1:
            raise ValueError(f"configs[{i}]: concurrency must be a positive integer, got {c['concurrency']!r}")
        out.append(c)
    return out


@dataclass
class NLIResults:
    timing: pd.DataFrame
    auc: pd.DataFrame
    refusal: pd.DataFrame
    hypotheses: pd.DataFrame  # every configuration's hypotheses with their labels
    items: pd.DataFrame


def run_configs(items: list[EvalItem], labels: Labels, configs: list[dict], run_name: str, *,
                order: str = "premise", pronouns: bool = True, with_document: bool = False,
                language: str = "english", quiet: bool = False) -> NLIResults:
    """Every configuration over every item; tables saved in results/nli_eval/<run_name>/.

    Configurations that differ only in concurrency would share every reply in
    the cache, leaving nothing to time; so each concurrency level above 1 gets
    its own cache entries (`cache_tag`). Times are those of the run that made
    the calls: a rerun served from the cache shows the recorded times.
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    configs = check_configs(configs)
    out = run_dir(EXPERIMENT, run_name)
    timings = ItemLog(out / "timings.jsonl", key=("config", "fingerprint"))
    fp_common = fingerprint([it.__dict__ for it in items], {p: template(p) for p in PROMPTS},
                            order, pronouns, with_document, language)
    timing_rows, hyp_all, item_all = [], [], []
    for c in configs:
        label = config_label(c)
        fp = fingerprint(fp_common, c)
        if not quiet:
            print(f"== {label}")
        res = run_nli(items, c["model"], variant=c["variant"], concurrency=c["concurrency"], order=order,
                      pronouns=pronouns, with_document=with_document, language=language,
                      cache_tag=None if c["concurrency"] == 1 else f"concurrency={c['concurrency']}", quiet=quiet)
        t = dict(res.timing)
        made_calls = t["transform_calls"] + t["nli_calls"] > 0
        if made_calls:
            timings.append({"config": label, "fingerprint": fp, "recorded": time.strftime("%Y-%m-%d %H:%M"), **t})
        recorded = timings.latest({(label, fp)})
        if not made_calls and len(recorded):
            # Served from the cache: the cost is the one measured when the calls were made.
            stored = recorded.iloc[-1].to_dict()
            t.update({k: stored[k] for k in ("transform_s", "nli_s")}, times_from=f"run of {stored['recorded']}")
        else:
            t["times_from"] = "this run" if made_calls else "cache (no recorded run: times are not model times)"
        timing_rows.append({"model": c["model"], "prompt": c["variant"], "concurrency": c["concurrency"],
                            "items": len(items), **t})
        for df, sink in ((res.hypotheses, hyp_all), (res.items, item_all)):
            sink.append(df.assign(model=c["model"], prompt=c["variant"], concurrency=c["concurrency"]))

    hyp = pd.concat(hyp_all, ignore_index=True).merge(
        labels.hypotheses[["item_id", "direction", "index", "entailed"]], on=["item_id", "direction", "index"],
        how="left")
    item_df = pd.concat(item_all, ignore_index=True)
    results = NLIResults(pd.DataFrame(timing_rows), auc_table(hyp), refusal_table(item_df, labels.refusals),
                         hyp, item_df)
    results.timing.to_csv(out / "timing.csv", index=False)
    results.auc.to_csv(out / "auc.csv", index=False)
    results.refusal.to_csv(out / "refusal.csv", index=False)
    hyp.to_csv(out / "hypotheses.csv", index=False)
    item_df.to_csv(out / "items.csv", index=False)
    return results


CONFIG_COLUMNS = ["model", "prompt", "concurrency"]


def auc_table(hyp: pd.DataFrame) -> pd.DataFrame:
    """ROC AUC of the hypothesis estimates against the labels, per configuration and direction.

    Hypotheses without an estimate (failed call, no facts) are counted as
    `unscored`, never scored 0; unlabelled ones are counted and left out.
    """
    rows = []
    for keys, part in hyp.groupby(CONFIG_COLUMNS, sort=False):
        for d in DIRECTIONS:
            sub = part[part.direction == d]
            labelled = sub[sub.entailed.notna()]
            s = separation_summary(labelled.entailed.astype(int), labelled.estimate.astype(float))
            rows.append({**dict(zip(CONFIG_COLUMNS, keys)), "direction": DIRECTION_NAMES[d],
                         "unlabelled": int(sub.entailed.isna().sum()), **s})
    return pd.DataFrame(rows)


def refusal_table(items: pd.DataFrame, refusal_labels: pd.DataFrame) -> pd.DataFrame:
    """Refusal-tagging accuracy per configuration over answers and ground truths, with a Wilson CI."""
    truth = {(r.item_id, r.text): r.refusal for r in refusal_labels.itertuples()}
    rows = []
    for keys, part in items.groupby(CONFIG_COLUMNS, sort=False):
        pairs = []
        for r in part.itertuples():
            for text, col in (("answer", "answer_refusal"), ("ground_truth", "gt_refusal")):
                if (r.item_id, text) in truth:
                    pairs.append((truth[(r.item_id, text)], getattr(r, col)))
        tagged = [(y, bool(p)) for y, p in pairs if p is not None and not pd.isna(p)]
        correct = sum(int(y) == int(p) for y, p in tagged)
        lo, hi = wilson_interval(correct, len(tagged))
        rows.append({**dict(zip(CONFIG_COLUMNS, keys)), "labelled_texts": len(pairs), "untagged": len(pairs) - len(tagged),
                     "refusals": sum(y for y, _ in pairs), "accuracy": correct / len(tagged) if tagged else float("nan"),
                     "accuracy_lo": lo, "accuracy_hi": hi,
                     "missed_refusals": sum(1 for y, p in tagged if y and not p),
                     "false_refusals": sum(1 for y, p in tagged if p and not y)})
    return pd.DataFrame(rows)


def seed_auc_table(auc: pd.DataFrame) -> pd.DataFrame:
    """The seed's second table: one row per configuration, one 'AUC [lo, hi]' column per direction."""
    cell = auc.assign(cell=[f"{a:.3f} [{lo:.2f}, {hi:.2f}]" for a, lo, hi in zip(auc.auc, auc.auc_lo, auc.auc_hi)])
    wide = cell.pivot_table(index=CONFIG_COLUMNS, columns="direction", values="cell", aggfunc="first", sort=False)
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
