"""The NLI answer evaluation against manual labels: configurations, the run, the two seed tables.

    items = load_items("data/nli_eval/items.jsonl")
    labels = load_labels("data/nli_eval", items)
    result = run_configs(items, labels, configs=[{"model": ..., "variant": "separated", "concurrency": 1}], ...)
    result.tables["timing"]   # seed table 1: time transforming / getting NLI, tokens, per configuration
    result.summary            # seed table 2: ROC AUC [95 % CI] per direction, per configuration
    result.tables["refusal"]  # refusal-tagging accuracy per configuration

Each configuration's calls, cache hits and tokens come from its own scope of
the one ledger (`ACCOUNTING.scope()`).
"""

from __future__ import annotations

import itertools
import json
import time

import pandas as pd

from ..models import ACCOUNTING
from ..paths import repo_path
from ..prompts import template
from ..runs.folders import fingerprint
from ..runs.runner import Result, Run, headline
from ..scoring.reliability import card_notes
from .combined import combined_table, with_combined
from .items import ORDERS, EvalItem
from .labels import Labels, load_items, load_labels
from .parameters import Parameters
from .pipeline import NLI_STAGE, PRONOUN_STAGE, REFUSAL_STAGE, VARIANTS
from .probability import VERDICT_STAGES
from .run import Reading, run_nli
from .tables import (
    CONFIG_COLUMNS,
    SCORERS,
    auc_table,
    by_kind,
    nli_cards,
    refusal_table,
    seed_auc_table,
    seed_timing_table,
)

EXPERIMENT = "nli"
PROMPTS = ("nli_system", "nli_refusal_system", "nli_pair", "pronoun_replacement", "refusal_batch")
TRANSFORM_STAGES = (PRONOUN_STAGE,)
NLI_STAGES = (NLI_STAGE, REFUSAL_STAGE, *VERDICT_STAGES)


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


def timing_from(ledger, seconds: dict) -> dict:
    """One configuration's cost: its stages' wall time, and calls, cache hits and tokens from its ledger scope."""
    def total(stages, attr):
        return sum(getattr(ledger.get(s), attr) for s in stages)
    t = dict(seconds)
    for name, stages in (("transform", TRANSFORM_STAGES), ("nli", NLI_STAGES)):
        t[f"{name}_calls"] = total(stages, "calls")
        t[f"{name}_cache_hits"] = total(stages, "cache_hits")
    t["input_tokens"] = total(TRANSFORM_STAGES + NLI_STAGES, "all_prompt_tokens")
    t["output_tokens"] = total(TRANSFORM_STAGES + NLI_STAGES, "all_completion_tokens")
    t["total_tokens"] = t["input_tokens"] + t["output_tokens"]
    return t


def run_nli_eval(p: Parameters) -> Result:
    """Notebook 05: the labelled set under every configuration (`models` x `variants` x `concurrency`)."""
    all_items = load_items(p.items_path)
    labels = load_labels(p.labels_dir, all_items, p.language)  # checked against every item, whatever n_items selects
    items = all_items[:p.n_items] if p.n_items else all_items
    configs = [{"model": m, "variant": v, "concurrency": c}
               for m, v, c in itertools.product(p.models or [p.model], p.variants, p.concurrency)]
    return run_configs(items, labels, configs, p.run_name, kinds=item_kinds(p.items_path),
                       reading=Reading(p.order, p.pronouns, p.with_document, p.language))


def item_kinds(items_path: str) -> dict[str, str]:
    """{item_id: kind} from the item file's optional `kind` field (how each item was written)."""
    rows = [json.loads(line) for line in repo_path(items_path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["item_id"]: r["kind"] for r in rows if r.get("kind")}


def resolved_timing(timings, label: str, fp: str, t: dict, resumed: int) -> dict:
    """A configuration's times: those measured now (recorded in `timings`), or, when nothing was called, the
    ones recorded when its calls were made; `times_from` says which."""
    made_calls = t["transform_calls"] + t["nli_calls"] > 0
    if made_calls and not resumed:
        timings.append({"config": label, "fingerprint": fp, "recorded": time.strftime("%Y-%m-%d %H:%M"),
                        **t, "error": None})
    recorded = timings.latest([(label, fp)])
    if not made_calls and len(recorded):
        # Nothing was called: the cost is the one measured when the calls were made.
        stored = recorded.iloc[-1].to_dict()
        return {k: stored[k] for k in t} | {"times_from": f"run of {stored['recorded']}"}
    if resumed:
        return t | {"times_from": f"this run, which resumed {resumed} finished rows of an earlier one "
                                  "(their calls are not counted here)"}
    return t | {"times_from": "this run" if made_calls else "cache (no recorded run: times are not model times)"}


def run_configs(items: list[EvalItem], labels: Labels, configs: list[dict], run_name: str, *,
                reading: Reading = Reading(), quiet: bool = False, kinds: dict[str, str] | None = None) -> Result:
    """Every configuration over every item; tables saved in results/nli/<run_name>/.

    Configurations that differ only in concurrency would share every reply in
    the cache, leaving nothing to time; so each concurrency level above 1 gets
    its own cache entries (`cache_tag`). Times are those of the run that made
    the calls: a rerun that makes none shows the cost recorded when they were made.
    """
    order, pronouns, with_document, language = reading.order, reading.pronouns, reading.with_document, reading.language
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    configs = check_configs(configs)
    parameters = {"configs": configs, "order": order, "pronouns": pronouns, "with_document": with_document,
                  "language": language, "items": [it.item_id for it in items],
                  "models": list(dict.fromkeys(c["model"] for c in configs))}
    with Run(EXPERIMENT, run_name, parameters=parameters) as run:
        timings = run.log(("config", "fingerprint"), "timings.jsonl")
        fp_common = fingerprint([it.__dict__ for it in items], {p: template(p) for p in PROMPTS},
                                order, pronouns, with_document, language)
        timing_rows, hyp_all, item_all = [], [], []
        for c in configs:
            label = config_label(c)
            fp = fingerprint(fp_common, c)
            if not quiet:
                print(f"== {label}")
            resumed_before = run.resumed
            with ACCOUNTING.scope() as ledger:
                res = run_nli(run, items, c["model"], config=label, variant=c["variant"], concurrency=c["concurrency"],
                              reading=reading, quiet=quiet,
                              cache_tag=None if c["concurrency"] == 1 else f"concurrency={c['concurrency']}")
            t = resolved_timing(timings, label, fp, timing_from(ledger, res.seconds), run.resumed - resumed_before)
            timing_rows.append({"model": c["model"], "prompt": c["variant"], "concurrency": c["concurrency"],
                                "items": len(items), **t})
            for df, sink in ((res.hypotheses, hyp_all), (res.items, item_all)):
                sink.append(df.assign(model=c["model"], prompt=c["variant"], concurrency=c["concurrency"]))

        hyp = pd.concat(hyp_all, ignore_index=True).merge(
            labels.hypotheses[["item_id", "direction", "index", "entailed"]], on=["item_id", "direction", "index"],
            how="left")
        hyp = with_combined(hyp, CONFIG_COLUMNS)  # cross-fitted on the labels: never scores its own training item
        item_df = pd.concat(item_all, ignore_index=True)
        auc = auc_table(hyp)
        reliability = nli_cards(hyp, item_df, labels.refusals)
        n_labelled = labels.hypotheses.item_id.isin({it.item_id for it in items}).sum()
        notes = [f"{len(items)} items, {n_labelled} labelled hypotheses, {len(configs)} configurations",
                 run.resume_note("hypotheses.jsonl")] + card_notes(reliability)
        first = headline_row(auc)
        return run.result(auc, items=hyp, notes=notes,
                          headline=headline(f"ROC AUC {first.get('direction', '?')}, {first.get('prompt', '?')}, "
                                            f"{first.get('scorer', '?')}", first.get("auc"), first.get("auc_lo"),
                                            first.get("auc_hi")),
                          tables={"timing": pd.DataFrame(timing_rows), "refusal": refusal_table(item_df, labels.refusals),
                                  "hypotheses": hyp, "items": item_df,
                                  "seed_timing": seed_timing_table(pd.DataFrame(timing_rows)),
                                  "seed_auc": seed_auc_table(auc), "by_kind": by_kind(item_df, kinds or {}),
                                  "reliability": reliability, "combined": combined_table(hyp, CONFIG_COLUMNS)})


def headline_row(auc: pd.DataFrame) -> dict:
    """The row a run is listed under: its first configuration's first direction, scored the way that variant is
    read (the probability variant exists for p(supported), not for its thresholded tags)."""
    if not len(auc):
        return {}
    first = auc[(auc[CONFIG_COLUMNS] == auc.iloc[0][CONFIG_COLUMNS]).all(axis=1)]
    by_p = first[first["scorer"] == SCORERS["estimate_p"]] if first.iloc[0]["prompt"] == "probability" else first[:0]
    return (by_p if len(by_p) else first).iloc[0].to_dict()
