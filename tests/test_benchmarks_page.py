"""docs/benchmarks.md is what benchmarks/render_page.py renders from benchmarks/measured/*.csv, never edited by
hand; and the README stays a first page: short, with a figure the default run draws, quoting only times the
benchmarks page holds."""

import csv
import importlib.util
import re

import pytest
import yaml
from lclab.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGE = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
TIME = re.compile(r"(\d[\d,]*(?:\.\d+)?) (s|min|h)\b")


def render_module():
    spec = importlib.util.spec_from_file_location("render_page", REPO / "benchmarks" / "render_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_what_the_rows_render_and_short():
    assert PAGE == render_module().render(), "docs/benchmarks.md is stale: run benchmarks/render_page.py"
    assert len(PAGE.encode()) <= 30_000


def test_every_measured_csv_has_a_table_and_every_table_a_csv():
    spec = yaml.safe_load((REPO / "benchmarks" / "page.yaml").read_text(encoding="utf-8"))
    named = [b["csv"] for b in spec["benchmarks"]]
    assert sorted(named) == sorted(p.stem for p in (REPO / "benchmarks" / "measured").glob("*.csv"))
    for b in spec["benchmarks"]:
        with (REPO / "benchmarks" / "measured" / f"{b['csv']}.csv").open(newline="", encoding="utf-8") as f:
            header = next(csv.reader(f))
        shown = [c if isinstance(c, str) else c["col"] for c in b["columns"]]
        assert set(shown + b.get("kind", []) + b.get("measurement", [])) <= set(header), b["csv"]


def test_the_latest_measurement_of_each_kind_is_shown_whole():
    rows = [{"machine": "a", "run": "1", "n": "1"}, {"machine": "a", "run": "1", "n": "8"},
            {"machine": "b", "run": "2", "n": "1"}, {"machine": "a", "run": "3", "n": "1"}]
    latest = render_module().latest
    assert latest(rows, ["machine"], ["run"]) == [rows[2], rows[3]]
    assert latest(rows, ["machine", "n"], ["run"]) == [rows[1], rows[2], rows[3]]
    assert latest(rows, [], []) == rows  # no kind: every row its own


def test_a_time_cell_carries_its_unit_and_its_error():
    cell = render_module().cell
    row = {"run_s": "1538", "fresh_s": "1582", "big": "17948"}
    assert cell(row, {"col": "run_s", "unit": "s (min)"}) == "1,538 s (25.6 min)"
    assert cell(row, {"col": "big", "unit": "s (min)"}) == "17,948 s (5.0 h)"
    assert cell(row, {"col": "fresh_s", "vs": "run_s"}) == "1,582 (+3 %)"
    assert cell({"run_s": "100", "fresh_s": "80"}, {"col": "fresh_s", "vs": "run_s"}) == "80 (−20 %)"
    assert cell(row, {"col": "missing", "unit": "s"}) == ""


def test_the_readme_is_short():
    assert len(README) <= 8_000, len(README)


def test_the_readme_shows_a_figure_the_default_run_draws():
    from PIL import Image

    default = yaml.safe_load((REPO / "params" / "default.yaml").read_text(encoding="utf-8"))["all"]
    figures = re.findall(r"!\[[^\]]*\]\((docs/figures/[^)]+\.png)\)", README)
    assert figures, "no figure embedded"
    path = REPO / figures[0]
    assert path.exists(), figures[0]
    assert path.stem.endswith(f"_{default['run_name']}")  # the name the default run writes under figures/
    described = Image.open(path).info["Description"]
    assert f"model: {default['model']}" in described and f"/{default['run_name']};" in described


def test_every_time_the_readme_quotes_is_on_the_benchmarks_page():
    quoted = {f"{n} {unit}" for n, unit in TIME.findall(README)}
    assert len(quoted) >= 4  # the two commands and the profiles' plans
    assert sorted(t for t in quoted if t not in PAGE) == []


def page_table(title: str) -> list[dict]:
    """The rows of the table under a heading of the page, by its header."""
    lines = [l for l in PAGE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0].splitlines() if l.startswith("|")]
    header, *rows = [[c.strip() for c in l.strip("|").split(" | ")] for l in lines]
    return [dict(zip(header, r)) for r in rows[1:]]


def test_the_profiles_planned_in_the_readme_are_the_pages_plans():
    page = {r["profile"]: r for r in page_table("What each profile plans")}
    planned = re.findall(r"^\| `(\w+)` \| ([\d.]+ (?:min|h)) \(([\d,]+) calls\)", README, re.M)
    assert {p for p, _, _ in planned} >= {"default", "smoke", "documented"}
    for profile, time, calls in planned:
        assert page[profile]["calls"] == calls and f"({time})" in page[profile]["planned"], profile


@pytest.mark.parametrize("doc", ["long-contexts.md", "trusting-the-numbers.md", "benchmarks.md"])
def test_a_long_docs_contents_list_links_to_its_sections(doc):
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    anchor = render_module().anchor
    headings = {anchor(h) for h in re.findall(r"^##+ (.+)$", text, re.M)}
    head = text[:text.index("\n## ")]
    links = re.findall(r"^\s*- \[[^\]]+\]\(#([^)]+)\)", head, re.M)
    assert len(links) >= 3 and set(links) <= headings, sorted(set(links) - headings)


def test_the_your_documents_section_stays_short():
    section = README.split("## Your own documents\n", 1)[1].split("\n## ", 1)[0]
    assert len(section.strip().splitlines()) <= 6


def test_a_scripts_rows_are_appended_under_the_files_header(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("measured_rows", REPO / "benchmarks" / "measured_rows.py")
    rows = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rows)
    monkeypatch.setattr(rows, "MEASURED", tmp_path)
    (tmp_path / "b.csv").write_text("date,machine,commit,workers,wall_s,note\n", encoding="utf-8")
    rows.append("b", [{"workers": 8, "wall_s": "2.20"}])
    with (tmp_path / "b.csv").open(newline="", encoding="utf-8") as f:
        (row,) = list(csv.DictReader(f))
    assert row["workers"] == "8" and row["note"] == "" and re.fullmatch(r"\d{4}-\d\d-\d\d", row["date"])
    assert row["machine"].endswith(" cores") and "(R)" not in row["machine"]
    with pytest.raises(ValueError):  # a column the file does not have: the page's spec names the columns
        rows.append("b", [{"workers": 1, "typo": 3}])
