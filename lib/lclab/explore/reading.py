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


def documents(prompt: str) -> list[tuple[int, int, int]]:
    """Every numbered document of a prompt: (its number, where it starts, where it ends)."""
    return [(int(m.group(1)), *answer_passage(prompt, int(m.group(1))))
            for m in re.finditer(r"(?m)^Document \[(\d+)\]\n", prompt)]


def _holds(text: str, gold: str | None) -> bool:
    return bool(gold and gold.strip()) and gold.strip().lower() in text.lower()


def retrieved_prompt(row: dict) -> bool:
    """Whether the prompt shown is a retrieval's (its numbered documents are the chunks it read), not the long
    context: the row names chunks retrieved and was not routed to the long context (02's Self-Route)."""
    return row.get("retrieved") not in (None, "", "[]") and not row.get("routed")


def _rag_where(prompt: str, gold: str | None, position, answer_document: str | None):
    """The passage to frame in a retrieval's prompt, and what the page says of it: the retrieved chunk that holds
    the gold; else said that none does, and whether the answer document (as the long context has it, where
    known) holds it at all, so a missed chunk is not read as a paraphrase."""
    holding = [(n, a, b) for n, a, b in documents(prompt) if _holds(prompt[a:b], gold)]
    if holding:
        n, a, b = holding[0]
        first = "" if position is None or int(position) == n else (
            f" (the answer document's first retrieved chunk is document {int(position)})")
        return (a, b), f"document {n}, the retrieved chunk that holds the gold, is framed{first}; the gold is marked"
    if position is None or position != position:
        return None, "retrieval missed the answer document: no retrieved chunk holds the gold"
    first = answer_passage(prompt, position)
    said = f"no retrieved chunk holds the gold verbatim; document {int(position)}, the answer document's first " \
           "retrieved chunk, is framed"
    if answer_document is not None and _holds(answer_document, gold):
        return first, said + ": the answer document holds the gold, in a chunk this retrieval did not read"
    if answer_document is not None:
        return first, said + ": the answer document does not hold it verbatim either (it words it otherwise)"
    return first, said


async def answer_document(db, table: str, row: dict) -> str | None:
    """The answer document whole, as the item's long-context twin (same run, QA pair, noise level and
    answerability) has it framed; None where the table has no such twin."""
    columns = {"run", "qa_id", "noise_pct", "method", "position", "prompt"}
    if not retrieved_prompt(row) or not columns <= set(row):
        return None
    twin = (await db.execute(f'select prompt, position from "{table}" where run = ? and qa_id = ? and noise_pct = ? '
                             "and method = 'long_context' and coalesce(answerable, 1) = coalesce(?, 1) limit 1",
                             [row["run"], row["qa_id"], row["noise_pct"], row.get("answerable")])).first()
    span = answer_passage(twin["prompt"] or "", twin["position"]) if twin is not None else None
    return twin["prompt"][span[0]:span[1]] if span else None


def reading(row: dict, table: str, back: str | None, answer_doc: str | None = None) -> dict:
    """What the reading view shows of one store row (any table with the common columns); `answer_doc`: a
    retrieval item's answer document whole (`answer_document`)."""
    prompt, gold = row.get("prompt") or "", row.get("highlight")
    passage = answer_passage(prompt, row.get("position"))
    verbatim = _holds(prompt, gold)
    if retrieved_prompt(row):
        passage, where = _rag_where(prompt, gold, row.get("position"), answer_doc)
    elif passage is not None:
        where = (f"the answer passage (document {int(row['position'])}, where the experiment placed it) is framed"
                 + ("; the gold is marked where it appears verbatim" if _holds(prompt[slice(*passage)], gold) else
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
