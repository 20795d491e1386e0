"""A static report of a run of the notebooks: results/report/index.html, to browse or share without Jupyter.

    python -m lclab.runs.report --profile default [--model SPEC]     # ./run_all.sh ends with this

Every executed notebook of the profile (results/notebooks/<profile>/, or <profile>-<model> after a --model run)
is exported to HTML by nbconvert, with its figures embedded; the index page links them, and per registered
experiment shows the runs those notebooks made and their figures (links to the PDF and SVG twins are relative,
so the folder can be shared). Other runs and the reference figures shipped in figures/ are not mixed in: the
page names how many there are and where.
"""

from __future__ import annotations

import argparse
import base64
import html
import os
import re
import sys
from pathlib import Path

import pandas as pd

from .. import paths
from ..experiments import experiments
from .index import refresh_index

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lclab report: {profile}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px 6px}}
figure{{display:inline-block;margin:0 1em 1em 0;max-width:520px}}img{{max-width:100%}}
figcaption{{font-size:12px}}</style></head>
<body><h1>lclab report: profile <code>{profile}</code></h1>
<h2>Notebooks</h2><ul>{notebooks}</ul>
<h2>Runs</h2>{index}
{experiments}
</body></html>
"""


def export(notebook: Path, out_dir: Path) -> Path:
    """One executed notebook as a self-contained HTML page (its figures are embedded in the outputs)."""
    import nbformat
    from nbconvert import HTMLExporter

    node = nbformat.read(notebook, as_version=4)
    for cell in node.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                output["text"] = progress_lines(output["text"])
    body, _ = HTMLExporter(template_name="classic").from_notebook_node(node)
    target = out_dir / f"{notebook.stem}.html"
    target.write_text(body, encoding="utf-8")
    return target


_BAR = re.compile(r"\d+%\|.*\|\s*\d+/\d+")  # a tqdm line: "37%|███▋      | 22/60 [00:41<01:11, ...]"


def progress_lines(text: str) -> str:
    """Stderr as a reader wants it in a report: each progress bar once, at its last state, not every redraw
    (a run's bars fill hundreds of lines that nbconvert shows as one long red block); other lines as they are."""
    lines: list[str] = []
    bar_at: dict[str, int] = {}  # a bar's label -> where its line is
    for line in re.split(r"[\r\n]+", text):
        if not line.strip():
            continue
        label = line.split("|")[0].rsplit(":", 1)[0] if _BAR.search(line) else None
        if label is not None and label in bar_at:
            lines[bar_at[label]] = line.strip()  # the bar's later state replaces the earlier
            continue
        if label is not None:
            bar_at[label] = len(lines)
        lines.append(line.strip() if label is not None else line)
    return "\n".join(lines) + ("\n" if lines else "")


def _figure(f: Path, out: Path) -> str:
    """A figure embedded in the page, with links to its PDF and SVG twins relative to the page (shareable)."""
    twins = ", ".join(f'<a href="{html.escape(os.path.relpath(f.with_suffix(s), out))}">{s[1:].upper()}</a>'
                      for s in (".pdf", ".svg") if f.with_suffix(s).exists())
    return (f'<figure><img alt="{html.escape(f.stem)}" src="data:image/png;base64,'
            f'{base64.b64encode(f.read_bytes()).decode()}"><figcaption>{html.escape(f.name)}'
            f'{f" ({twins})" if twins else ""}</figcaption></figure>')


def runs_of(executed: list[Path]) -> set[tuple[str, str]]:
    """(experiment, run name) of every run the executed notebooks made, from the parameters papermill recorded."""
    import json

    from ..experiments import for_notebook

    made = set()
    for notebook in executed:
        experiment = for_notebook(notebook.stem)
        meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get("papermill", {})
        params = meta.get("parameters") or {}
        if "run_name" in params:  # a notebook of no registered experiment (the comparison): None
            made.add((experiment.name if experiment else None, str(params["run_name"])))
    return made


def _made_by(figure: Path, made: set[tuple[str | None, str]]) -> bool:
    """Whether a figure is one of these runs': <experiment>_<run>[_...].png, or for a notebook of no registered
    experiment, any figure ending in _<run> that no registered experiment's name starts."""
    own = tuple(f"{e.name}_" for e in experiments())
    return any(figure.stem == f"{e}_{r}" or figure.stem.startswith(f"{e}_{r}_") if e is not None
               else figure.stem.endswith(f"_{r}") and not figure.stem.startswith(own) for e, r in made)


def _sections(index: pd.DataFrame, out: Path, made: set[tuple[str, str]]) -> str:
    """One section per registered experiment that has runs here: what it asks, its runs, their figures."""
    every = sorted(paths.FIGURES.glob("*.png"))
    figures = [f for f in every if _made_by(f, made)]
    shown, parts = set(), []
    for experiment in experiments():
        runs = index[index["experiment"] == experiment.name] if len(index) else index
        mine = [f for f in figures if f.stem.startswith(f"{experiment.name}_")]
        if not len(runs) and not mine:
            continue
        shown.update(mine)
        table = runs.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.3f}") if len(runs) else ""
        parts.append(f"<h2>{html.escape(experiment.name)} ({html.escape(experiment.notebook_stem)})</h2>"
                     f"<p>{html.escape(experiment.description)}</p>{table}"
                     + "".join(_figure(f, out) for f in mine))
    rest = [f for f in figures if f not in shown]
    if rest:
        parts.append("<h2>Other figures of these runs</h2>" + "".join(_figure(f, out) for f in rest))
    others = len(every) - len(figures)
    if others:
        parts.append(f"<p>{others} other figure(s) in {html.escape(str(paths.FIGURES))} (the shipped reference "
                     "figures and other profiles' runs) are not shown here.</p>")
    return "\n".join(parts)


def build(profile: str = "default", model: str | None = None) -> Path:
    """Write results/report/ for the executed notebooks of `profile` (run with --model `model`, if given);
    returns the index page."""
    from .naming import executed_dir

    folder = executed_dir(profile, model)
    executed = sorted(p for p in folder.glob("*.ipynb") if not p.name.startswith("."))  # not ones still running
    if not executed:
        raise FileNotFoundError(f"no executed notebooks in {folder}: run them first")
    out = paths.RESULTS / "report"
    out.mkdir(parents=True, exist_ok=True)
    pages = [export(nb, out) for nb in executed]
    notebooks = "".join(f'<li><a href="{p.name}">{html.escape(p.stem)}</a></li>' for p in pages)
    made = runs_of(executed)
    every = refresh_index()
    runs = every[[(e, str(r)) in made for e, r in zip(every["experiment"], every["run"])]] if len(every) else every
    index = runs.to_html(index=False, na_rep="", float_format=lambda v: f"{v:.3f}")
    if len(every) > len(runs):
        index += (f"<p>{len(every) - len(runs)} other run(s) in results/index.csv are not from these notebooks."
                  "</p>")
    page = out / "index.html"
    page.write_text(PAGE.format(profile=html.escape(folder.name), notebooks=notebooks, index=index,
                                experiments=_sections(runs, out, made)), encoding="utf-8")
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lclab.runs.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="default")
    parser.add_argument("--model", help="the --model of the run to report (its notebooks are kept apart)")
    args = parser.parse_args(argv)
    try:
        page = build(Path(args.profile).stem, args.model)
    except FileNotFoundError as err:
        print(f"report: {err}", file=sys.stderr)
        return 2
    print(f"report: {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
