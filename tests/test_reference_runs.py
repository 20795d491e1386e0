"""The docs' numbers recomputed from the versioned item files of the runs they quote (data/reference_runs/), with
the lab's own functions: a table that drifts from its run, or a run that changes under its table, fails here."""

import re

import pandas as pd
from lclab.paths import REPO
from lclab.synthetic.run import effective_lengths, summarize

RUNS = REPO / "data" / "reference_runs"


def docs_table(doc: str, header_start: str) -> list[list[str]]:
    lines = (REPO / "docs" / doc).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_synthetic_cpu_study_table_is_what_its_items_give():
    items = pd.read_json(RUNS / "synthetic" / "result_items.jsonl", lines=True, precise_float=True)
    assert len(items) == 180 and items["cluster"].nunique() == 20
    by_length = summarize(items, ["task", "context_tokens"]).set_index(["task", "context_tokens"])
    lengths = effective_lengths(items).set_index("task")
    rows = docs_table("long-contexts.md", "| task | 1,000 | 2,000 | 4,000 | effective length")
    assert [r[0] for r in rows] == ["needle_single", "variables"]
    for task, *cells, effective in rows:
        for length, cell in zip((1000, 2000, 4000), cells):
            r = by_length.loc[(task, length)]
            assert cell == f"{r['score']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]", (task, length)
            assert r["haystacks"] == 10
        e = lengths.loc[task]
        assert effective == f"{e['effective_length']:,.0f} [{e['lo']:,.0f}, {e['hi']:,.0f}]", task


def test_the_reference_manifest_names_the_run_and_model_it_came_from():
    manifest = pd.read_json(RUNS / "synthetic" / "manifest.json", typ="series")
    assert manifest["experiment"] == "synthetic" and manifest["run_name"] == "synthetic"
    assert re.fullmatch(r"[0-9a-f]{40}", manifest["commit"])


def cell(value: float, lo: float, hi: float, fmt: str = ".2f") -> str:
    shown = lambda x: "none" if pd.isna(x) else format(x, fmt)  # noqa: E731
    return f"{shown(value)} [{shown(lo)}, {shown(hi)}]"


def test_the_association_study_table_is_what_its_items_give():
    from lclab.synthetic.run import association_tables

    items = pd.read_json(RUNS / "associations" / "result_items.jsonl", lines=True, precise_float=True)
    assert len(items) == 120 and items["cluster"].nunique() == 20
    by_length = summarize(items, ["task", "context_tokens"]).set_index(["task", "context_tokens"])
    lengths = effective_lengths(items).set_index("task")
    rows = docs_table("long-contexts.md", "| task | overlap | 1,000 | 2,000 | 4,000 | NoLiMa's effective")
    assert [r[0] for r in rows] == ["association", "association_literal"]
    for task, overlap, *cells, nolima, ruler in rows:
        assert overlap == f"{items[items['task'] == task]['question_overlap'].mean():.2f}"
        for length, shown in zip((1000, 2000, 4000), cells):
            r = by_length.loc[(task, length)]
            assert shown == cell(r["score"], r["lo"], r["hi"]), (task, length)
            assert r["haystacks"] == 10
        e = lengths.loc[task]
        assert nolima == cell(e["effective_length"], e["lo"], e["hi"], ",.0f"), task
        assert ruler == cell(e["ruler_effective_length"], e["ruler_lo"], e["ruler_hi"], ",.0f"), task
    gap = association_tables(items)["association_gap"].set_index("context_tokens")
    rows = docs_table("long-contexts.md", "| length | literal − associative")
    for length, shown in rows:
        g = gap.loc[int(length.replace(",", ""))]
        assert shown == cell(g["literal_minus_association"], g["lo"], g["hi"], "+.2f"), length


def test_the_ruler_table_at_4096_is_what_its_items_give():
    """RULER's thirteen tasks on the 0.5B at 4,096 tokens, prefilled as RULER runs open models: each task's cell
    and RULER's 11-task average without QA (its bootstrap interval) recomputed from the shipped item rows."""
    from lclab.synthetic.ruler_tables import ruler_average

    items = pd.read_json(RUNS / "ruler" / "result_items.jsonl", lines=True, precise_float=True)
    assert len(items) == 52 and items["cluster"].nunique() == 52 // items["context_tokens"].nunique()
    assert set(items["ruler_form"]) == {"prefill"}
    tables = ruler_average(items)
    by_task = tables["ruler_by_task"].set_index("task")[4096]
    average = tables["ruler"].set_index("context_tokens").loc[4096]
    rows = docs_table("long-contexts.md", "| RULER task, 4,096 tokens, prefilled | score x 100 |")
    shown = {task.strip("*"): value.strip("*") for task, value in rows}
    for task, value in by_task.items():
        assert shown[task] == f"{value:.1f}", task
    assert shown[average["average"]] == (f"{average['mean_x100']:.1f} [{average['lo_x100']:.1f}, "
                                         f"{average['hi_x100']:.1f}]")


def test_the_vt_rerun_on_rulers_current_layout_is_what_its_items_give():
    """vt again on the same 4 haystacks (the same chains; only the layout changed): its cell and the paired
    difference from the 13-task run's vt cell, as the docs quote them."""
    from lclab.synthetic.ruler_tables import ruler_average

    again = pd.read_json(RUNS / "ruler-vt" / "result_items.jsonl", lines=True, precise_float=True)
    before = pd.read_json(RUNS / "ruler" / "result_items.jsonl", lines=True, precise_float=True)
    before = before[before["task"] == "vt"]
    paired = again[["cluster", "targets", "score"]].merge(before[["cluster", "targets", "score"]], on="cluster",
                                                           suffixes=("", "_before"))
    assert len(paired) == 4 and (paired["targets"] == paired["targets_before"]).all()
    cell = ruler_average(again)["ruler_by_task"].set_index("task").loc["vt", 4096]
    text = (REPO / "docs" / "long-contexts.md").read_text(encoding="utf-8")
    assert (f"vt on RULER's current layout: {cell:.1f}" in text
            and f"paired difference {100 * (paired['score'] - paired['score_before']).mean():+.1f}" in text)

