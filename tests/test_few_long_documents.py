"""A user's corpus is often a handful of long manuals: 00 draws its passages across them and along them, says
from where, and a pair cut at its budget is asked once more before the item fails (#49 §7)."""

import subprocess
import sys

from lclab.qa.generate import drawn_from, sample_passages
from lclab.text.corpus import Document


def manuals(files: str, passages: int) -> list[Document]:
    return [Document(f"{f}:{i}", f"Section {i} of manual {f}. " * 30, f) for f in files for i in range(passages)]


def test_few_long_files_give_n_passages_spread_over_files_and_positions():
    chosen = sample_passages(manuals("abc", 20), 12, 400, seed=0)
    assert len(chosen) == 12 and len({p.id for p in chosen}) == 12  # never the same passage twice
    per_file = {f: sorted(int(p.id.split(":")[1]) for p in chosen if p.source == f) for f in "abc"}
    assert all(len(v) == 4 for v in per_file.values())
    assert all(v[-1] - v[0] >= 10 for v in per_file.values())  # spread along each manual, not its first pages
    assert drawn_from(chosen) == "12 passages from 3 files (4, 4, 4 per file)"


def test_many_files_still_give_one_passage_per_file_as_before():
    chosen = sample_passages(manuals("abcdefgh", 5), 6, 400, seed=3)
    assert len({p.source for p in chosen}) == 6
    few = sample_passages(manuals("ab", 2), 12, 400, seed=0)
    assert len(few) == 4  # all there is: fewer passages than asked, never a repeat


def test_a_plan_names_where_the_passages_come_from_and_a_short_qa_file_is_said_once_in_one_line(tmp_path):
    docs = tmp_path / "manuals"
    docs.mkdir()
    for name in ("apache", "mpl", "artistic"):
        (docs / f"{name}.txt").write_text("\n\n".join(f"Clause {i} of the {name} license says that the licensee "
                                                      f"may copy the work under condition {i}." * 4
                                                      for i in range(40)), encoding="utf-8")
    profile = tmp_path / "mydocs.yaml"
    profile.write_text("all:\n  model: local/qwen2.5-coder-0.5b\n"
                       f"00_make_qa_set:\n  corpus: {docs}\n  n_passages: 12\n"
                       "01_lost_in_the_middle:\n  n_qa: 20\n", encoding="utf-8")  # the shipped file has 14
    result = subprocess.run([sys.executable, "-m", "lclab.runs.notebooks", "--profile", str(profile), "--plan",
                             "00_make_qa_set", "01_lost_in_the_middle"], capture_output=True, text=True, timeout=300)
    assert "12 passages from 3 files (4, 4, 4 per file)" in result.stdout, result.stdout + result.stderr
    warned = [line for line in result.stderr.splitlines() if "validated" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: ") and "n_qa is 20" in warned[0], result.stderr


def test_a_pair_cut_at_its_budget_is_asked_once_more_with_room_before_the_item_fails(monkeypatch):
    from lclab.models import reset_backend_registry
    from lclab.models.fault_server import FaultServer
    from lclab.qa.generate import RETRY_TOKENS, generate_pair

    def reply(body: dict) -> str:
        if "pairs" not in body["messages"][0]["content"]:  # a probe: the answer back
            return "condition 3"
        if body["max_tokens"] < RETRY_TOKENS:  # the pairs do not fit: cut mid-JSON, the repair too
            return '{"pairs": [{"question": "Which licence lets the licensee copy the work under condi'
        return ('{"pairs": [{"question": "Under which clause may the licensee copy the Apache-licensed work?", '
                '"answer": "condition 3"}]}')

    with FaultServer(reply=reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        reset_backend_registry()
        passage = Document("apache:3", "Clause 3 says that the licensee may copy the work under condition 3.", "apache")
        pair = generate_pair("openai/any", passage)
        assert pair["answer"] == "condition 3"
        asked = [r["max_tokens"] for r in server.requests if "pairs" in r["messages"][0]["content"]]
        assert asked[-1] == RETRY_TOKENS and asked.count(RETRY_TOKENS) == 1
    reset_backend_registry()
