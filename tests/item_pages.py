"""What an item's reading view (/-/item) shows as its prompt, read back from the page's HTML, and the check that it
is, byte for byte, the prompt the gateway announced for that item's answering call (the run's prompts log: a
prompt built during the run as written there, a sample's own input where the log says it was that)."""

import json
import sqlite3
from html.parser import HTMLParser
from pathlib import Path


class _PromptText(HTMLParser):
    """The text of the page's `lclab-prompt` block, the folds' "… n characters folded" buttons left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0  # open <div>s inside the prompt block (0: outside it)
        self.in_summary = False
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "div" and (self.depth or "lclab-prompt" in (dict(attrs).get("class") or "")):
            self.depth += 1
        self.in_summary = self.in_summary or (self.depth > 0 and tag == "button")

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth -= 1
        if tag == "button":
            self.in_summary = False

    def handle_data(self, data):
        if self.depth and not self.in_summary:
            self.parts.append(data)


def shown_prompt(page: str) -> str:
    parser = _PromptText()
    parser.feed(page)
    return "".join(parser.parts)


def announced_prompts(results: Path) -> dict[str, object]:
    """{prompt_sha256: the prompt as announced} over every run's prompts logs under `results`."""
    from lclab.runs.prompts_log import read

    out = {}
    for log in results.glob("*/*/*.prompts.jsonl"):
        samples_file = log.with_name(log.name.replace(".prompts.jsonl", ".samples.jsonl"))
        lines = samples_file.read_text().splitlines() if samples_file.exists() else []
        samples = {json.dumps(s["key"], sort_keys=True): s["input"] for s in map(json.loads, lines)}
        for entry in read(log):
            out[entry["prompt_sha256"]] = (entry["prompt"] if "prompt" in entry
                                           else samples[json.dumps(entry["key"], sort_keys=True)])
    return out


def assert_every_item_page_shows_the_prompt_sent(results: Path) -> tuple[int, int]:
    """Every item row with a `prompt_sha256` (each arm's answering call) opens a reading view whose prompt is the
    announced prompt byte for byte, framing the answer passage wherever the row says where it is (`position`)
    and the prompt holds it; returns how many pages were read and how many framed a passage (the caller checks
    there were some)."""
    from lclab.explore.reading import answer_passage
    from lclab.explore.server import app
    from lclab.explore.store import _prompt_text, build
    from lclab.models import prompt_sha256
    from test_explore_guard import call

    sent = announced_prompts(results)
    db = build(results / "lab.sqlite", results)
    explorer = app(db)
    read = framed = 0
    with sqlite3.connect(db) as con:
        con.row_factory = sqlite3.Row
        tables = [t for (t,) in con.execute("select name from sqlite_master where type = 'table'")
                  if "prompt_sha256" in {c[1] for c in con.execute(f'pragma table_info("{t}")')}]
        for table in tables:
            hashed = f'select rowid as id, * from "{table}" where prompt_sha256 is not null'
            for row in con.execute(hashed):
                rowid, sha = row["id"], row["prompt_sha256"]
                assert sha in sent, (table, rowid, "its prompt was never announced")
                prompt = sent[sha]
                if isinstance(prompt, str):  # the hash the row names is of this very text, sent as the user turn
                    assert prompt_sha256([{"role": "user", "content": prompt}]) == sha, (table, rowid)
                page = call(explorer, "GET", f"/-/item?table={table}&rowid={rowid}")
                assert page.status_code == 200, (table, rowid, page.text[:300])
                assert shown_prompt(page.text) == _prompt_text(prompt), (table, rowid)
                read += 1
                position = row["position"] if "position" in row.keys() else None
                if answer_passage(_prompt_text(prompt), position) is not None:
                    assert 'id="answer"' in page.text and "box.scrollTop" in page.text, (table, rowid)
                    framed += 1
    return read, framed
