"""An item as a researcher reads it (`/-/item?table=<table>&rowid=<n>`): the question, the gold, the reply, the
verdict with its probability, the string match, the label and why an item went unscored, then the exact prompt
with the answer passage marked where the experiment placed it (its `position` among the numbered documents) and
the gold marked where it appears verbatim; the page opens at the passage. Links lead back to the run, its summary
rows and the list the item came from."""

from __future__ import annotations

import html
import json
import re
from urllib.parse import urlencode

from ..experiments import find

KEEP = 300  # characters shown around each marked passage, and at either end of a folded prompt
FOLD_AT = 1_500  # prompts longer than this are folded
FIELDS = (("question", "question"), ("gold", "highlight"), ("reply", "reply"), ("verdict", "verdict"),
          ("verdict probability", "verdict_p"), ("string match", "string_match"), ("label", "label"),
          ("judge vs label", "judge_vs_label"), ("unscored because", "unscored"))


def experiment_name(name: str) -> str:
    """An experiment as the README names it: "01 lost in the middle (depth_sweep)"."""
    experiment = find(name)
    if experiment is None:
        return name
    number, _, words = experiment.notebook_stem.partition("_")
    return f"{number} {words.replace('_', ' ')} ({name})"


def answer_passage(prompt: str, position) -> tuple[int, int] | None:
    """Where the answer passage sits in a prompt of numbered documents ("Document [i]", lclab.text.context): the
    span of document `position` (as the experiment recorded it), to the next document or the question."""
    if position is None or position != position:
        return None
    header = re.search(rf"(?m)^Document \[{int(position)}\]\n", prompt)
    if header is None:
        return None
    end = re.compile(r"\n\n(?=Document \[\d+\]\n|Question: )").search(prompt, header.end())
    return header.start(), end.start() if end else len(prompt)


# Folds open and close on their own: not <details>, which Datasette's menu script closes on every click elsewhere.
FOLDS = """document.addEventListener("click", e => {
  const button = e.target.closest(".lclab-unfold");
  if (!button) return;
  const folded = button.nextElementSibling, open = folded.hidden;
  folded.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
});"""


def fold_and_mark(text: str, mark: str | None, passage: tuple[int, int] | None = None, keep: int = KEEP) -> str:
    """`text` as HTML: every occurrence of `mark` highlighted, the answer `passage` (a span) framed with the anchor
    `answer`, the parts far from both (and from either end) folded behind a button, so a 30k-token prompt opens at
    its needle (each fold opened by its button, FOLDS)."""
    spans = [m.span() for m in re.finditer(re.escape(mark), text, re.IGNORECASE)] if mark and mark.strip() else []
    if len(text) <= FOLD_AT:
        shown = [(0, len(text))]
    else:
        near = [*spans, *([passage] if passage else [])]
        shown = sorted([(0, keep), (len(text) - keep, len(text)), *((max(a - keep, 0), b + keep) for a, b in near)])
    merged: list[list[int]] = []
    for a, b in shown:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    out, at = [], 0
    for a, b in merged:
        if a > at:
            out.append(f'<span class="lclab-fold"><button type="button" class="lclab-unfold" aria-expanded="false">'
                       f"… {a - at:,} characters folded</button>"
                       f'<span class="lclab-folded" hidden>{_marked(text, at, a, spans)}</span></span>')
        out.append(_framed(text, a, b, spans, passage))
        at = b
    return f'<div class="lclab-prompt" style="white-space:pre-wrap">{"".join(out)}</div>'


def _framed(text: str, a: int, b: int, spans, passage) -> str:
    """text[a:b] marked, with the answer passage (when it lies within) in its frame."""
    if passage is None or not (a <= passage[0] and passage[1] <= b):
        return _marked(text, a, b, spans)
    p0, p1 = passage
    return (_marked(text, a, p0, spans) + '<div id="answer" class="answer-passage" style="background:#fff3c4;'
            'border-left:4px solid #d9a400;padding-left:0.4em">' + _marked(text, p0, p1, spans) + "</div>"
            + _marked(text, p1, b, spans))


def _marked(text: str, a: int, b: int, spans) -> str:
    out, at = [], a
    for s, e in spans:
        s, e = max(s, at), min(e, b)
        if s < e:
            out += [html.escape(text[at:s]), f"<mark>{html.escape(text[s:e])}</mark>"]
            at = e
    return "".join(out) + html.escape(text[at:b])


def reading(row: dict, table: str, back: str | None) -> dict:
    """What the reading view shows of one store row (any table with the common columns)."""
    prompt, gold = row.get("prompt") or "", row.get("highlight")
    passage = answer_passage(prompt, row.get("position"))
    verbatim = bool(gold) and gold.strip().lower() in prompt.lower()
    if passage is not None:
        where = (f"the answer passage (document {int(row['position'])}, where the experiment placed it) is framed"
                 + ("; the gold is marked where it appears verbatim" if verbatim else
                    "; the gold does not appear in it verbatim (the passage words it otherwise)"))
    else:
        where = ("the gold is marked where it appears verbatim" if verbatim else
                 "the gold is not found verbatim in the prompt, and this experiment records no answer passage")
    run = row.get("run") or ""
    fields = [(name, row.get(column)) for name, column in FIELDS if row.get(column) not in (None, "")]
    axes = json.loads(row.get("axes") or "{}")
    return {"table": table, "run": run, "experiment": experiment_name(row.get("experiment") or ""),
            "item_id": row.get("item_id"), "model": row.get("model"), "axes": axes, "fields": fields,
            "where": where, "prompt_html": fold_and_mark(prompt, gold, passage), "folds_script": FOLDS,
            "links": [("the run's items", "/lab/items?" + urlencode({"run": run})),
                      ("its summary rows", "/lab/summaries?" + urlencode({"run": run})),
                      *([("back to the list", back)] if back else [])]}
