"""The lab's RULER set beside RULER's own code (lm-eval's port, loaded by tests/ruler_reference.py): each task's
configuration read from RULER's task functions, one sample per task at 4,096 tokens against RULER's generator
output (its template, layout and answer prefix; keys, values and positions are drawn by each side's own random
numbers, so they are masked), and the lab's scorer against RULER's on every task's targets."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from conftest import SMALL_MODEL, synthetic_samples
from lclab.synthetic import build_samples, score
from lclab.synthetic.ruler import NOISE, RULER_TASKS
from lclab.text.corpus import load_corpus

import ruler_reference

pytestmark = [pytest.mark.model]
NIAH = [t for t, spec in RULER_TASKS.items() if spec.family == "niah"]
NEEDLE = re.compile(r"One of the special magic (?:numbers|uuids|words|number|uuid|word) for .+? is: \S+\.")
HAYSTACK = {"repeat": "noise", "essay": "essay", "needle": "needle"}  # RULER's names -> the lab's


@pytest.fixture(scope="module")
def ruler():
    essays = [d.text for d in load_corpus("paul_graham").documents]
    return ruler_reference.load(essays)


@pytest.fixture(scope="module")
def lab():
    """One haystack of every RULER task at 4,096 tokens in the 0.5B's tokens, in RULER's chat-API form (the task
    text with its answer prefix: the form the reference's text and prefix are compared with)."""
    samples = synthetic_samples(model=SMALL_MODEL, tasks=["ruler"], context_tokens=[4096], depths=[50], n_samples=1,
                            seed=0, corpus="paul_graham", value_kinds=["numbers"], qa_path="data/pg_qa/qa.csv",
                            ruler_form="chat")
    return {s["task"]: s for s in samples}


def niah_configs(ruler) -> dict[str, dict]:
    """What each of RULER's niah task functions passes to its sample generator."""
    niah, seen = ruler["niah_utils"], {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(niah, "get_tokenizer", lambda name=None, **kw: None)
        patch.setattr(niah, "resolve_tokenizer_name", lambda kwargs: None)
        for task in NIAH:
            patch.setattr(niah, "generate_samples", lambda haystack, **kw: seen.setdefault(task, kw) and [])
            getattr(niah, task)(max_seq_lengths=[4096])
    return seen


def test_each_niah_task_is_configured_as_rulers_task_function_configures_it(ruler):
    for task, kw in niah_configs(ruler).items():
        spec = RULER_TASKS[task]
        queries = kw.get("num_needle_q", 1)
        assert (HAYSTACK[kw["type_haystack"]], kw["type_needle_k"], kw["type_needle_v"],
                max(kw.get("num_needle_k", 1), queries), kw.get("num_needle_v", 1), queries) == \
            (spec.haystack, spec.key, spec.value, spec.keys, spec.values, spec.queries), task
        assert kw["template"] == ruler["niah_utils"].TEMPLATE


class WordCount:
    """A tokenizer for RULER's sizing loops where only the text's shape is compared: a token per word."""

    def __call__(self, text: str):
        return type("Encoded", (), {"input_ids": text.split()})()


def ruler_niah(ruler, kw: dict, seed: int = 0) -> dict:
    """RULER's first sample of a niah task at 2,000 words: its input (without the answer prefix) and prefix."""
    random.seed(seed)
    np.random.seed(seed)
    haystack = ruler["prepare_niah"].get_haystack(kw["type_haystack"])
    keep = {k: v for k, v in kw.items() if k not in ("max_seq_length", "num_samples", "TOKENIZER")}
    return ruler["prepare_niah"].generate_samples(haystack, TOKENIZER=WordCount(), max_seq_length=2000,
                                                  num_samples=1, **keep)[0]


def context_lines(text: str) -> list[str]:
    """The lines between a niah prompt's first line (the instruction) and its last (the question)."""
    return text.split("\n")[1:-1]


def test_a_niah_sample_is_rulers_template_layout_and_prefix(ruler, lab):
    for task, kw in niah_configs(ruler).items():
        theirs, ours = ruler_niah(ruler, kw), lab[task]
        query = re.search(r" for (.+?) mentioned in the provided text\?", theirs["input"]).group(1)
        our_query = re.search(r" for (.+?) mentioned in the provided text\?", ours.input).group(1)
        # the instruction line, as RULER fills it
        assert ours.input.split("\n")[0] == theirs["input"].split("\n")[0], task
        # the question and, after one space, the answer prefix (RULER's gen_prefix), for each side's own keys
        question = theirs["input"].split("\n")[-1] + " " + theirs["gen_prefix"]
        assert ours.input.split("\n")[-1].replace(our_query, "{query}") == question.replace(query, "{query}"), task
        # the haystack laid out alike: noise sentences and needles a line each, needles a line each, or essay
        # sentences in one paragraph with the needles among them
        kinds = [{"noise" if line == NOISE else "needle" if NEEDLE.fullmatch(line) else "other"
                  for line in context_lines(text)} for text in (theirs["input"], ours.input)]
        if kw["type_haystack"] == "essay":
            assert [len(context_lines(t)) for t in (theirs["input"], ours.input)] == [1, 1], task
            found = [NEEDLE.findall(context_lines(t)[0]) for t in (theirs["input"], ours.input)]
            needles = max(kw.get("num_needle_k", 1), kw.get("num_needle_q", 1)) * kw.get("num_needle_v", 1)
            assert len(found[0]) == len(found[1]) == needles, task  # RULER raises the keys to the keys asked
        else:
            assert kinds[0] == kinds[1] == ({"noise", "needle"} if kw["type_haystack"] == "repeat" else {"needle"}), \
                (task, kinds)
        assert len(theirs["outputs"]) == len(ours.target), task


def masked_vt(text: str) -> str:
    return re.sub(r"VAR [A-Z]+ = (?:VAR [A-Z]+ |\d+)", "<VAR>", text)


def test_a_vt_sample_is_rulers_template_layout_and_prefix(ruler, lab):
    random.seed(0)
    np.random.seed(0)
    theirs, names = ruler["vt_utils"].generate_input_output(60, 1, 4)
    value = re.search(r"assigned the value (\d+) in the text above", theirs).group(1)
    ours = lab["vt"].input
    ours = ours[ours.rindex("Memorize and track"):]  # after RULER's one-shot example (its own prompt, answered)
    our_value = re.search(r"assigned the value (\d+) in the text above", ours).group(1)
    theirs, ours = (masked_vt(t).replace(v, "{value}").rstrip() for t, v in ((theirs, value), (ours, our_value)))
    # instruction, blank line, ..., question and answer prefix: RULER's (lm-eval strips the prefix's last space)
    assert ours.split("\n")[:2] == theirs.split("\n")[:2] and ours.split("\n")[-1] == theirs.split("\n")[-1]
    assert ours.count("<VAR>") == theirs.count("<VAR>") == len(names) == len(lab["vt"].target)
    # The layout is RULER's current one (NVIDIA/RULER's variable_tracking.py: noise and statements a line each),
    # which lm-eval 0.4.13's port predates: there a statement begins the noise line after it (" ".join of lines).
    assert set(ours.split("\n")[2:-1]) == {NOISE, "<VAR>"}
    assert {line.strip() for line in theirs.split("\n")[2:-1] if "<VAR>" in line} == {"<VAR> " + NOISE}


def numbered(line: str) -> bool:
    """RULER's word list: "1. word 2. word ...", numbered from 1 without a gap."""
    return [int(n) for n in re.findall(r"(?:^| )(\d+)\. ", line)] == list(range(1, line.count(". ") + 1)) and \
        line.startswith("1. ")


def test_a_cwe_and_an_fwe_sample_are_rulers_templates_and_layouts(ruler, lab):
    random.seed(0)
    example, theirs, answer = ruler["cwe_utils"].generate_input_output(60, 4096)
    ours = lab["cwe"].input
    for text in (example, theirs):
        head, listed, question = text.split("\n")
        assert ours.split("\n")[0] == head and numbered(listed)
    assert ours.split("\n")[-1] == theirs.split("\n")[-1] and len(answer) == len(lab["cwe"].target) == 10
    assert all(numbered(line) or line.startswith(("Below", "Question")) for line in ours.split("\n"))
    random.seed(0)
    text, answer, _ = ruler["fwe_utils"].generate_input_output(400, WordCount(), num_words=300)
    ours = lab["fwe"].input
    head = text[:text.index("coded words. ") + len("coded words. ")]
    assert ours.startswith(head) and ours.split("\n")[-1] == text.split("\n")[-1]
    assert len(answer) == len(lab["fwe"].target) == 3


def test_the_scorer_agrees_with_rulers_on_every_task(ruler, lab):
    """Replies built from each task's own targets: every one, a part, none, in capitals, with a control character
    beside them. string_match_all is RULER's exactly; for string_match_part the lab follows NVIDIA's RULER (1 when
    any reference is in the reply), where lm-eval's port scores the share found (they differ only when some but not
    all references are), which is counted and said."""
    common = ruler["common_utils"]
    compared, part_differs = 0, 0
    for task, sample in lab.items():
        targets, metric = list(sample.target), RULER_TASKS[task].metric
        replies = [" ".join(targets), " ".join(reversed(targets)), targets[0], "I do not know.",
                   " ".join(targets).upper(), "\x07" + targets[-1] + "\n", ", ".join(targets[: len(targets) // 2])]
        for reply in replies:
            ours = score(reply, targets, metric).value
            doc = {"max_length": 4096, "outputs": targets}
            if metric == "string_match_all":
                assert ours == common.process_results(doc, [reply])["4096"], (task, reply)
            else:
                found = sum(t.lower() in common.postprocess_pred([reply])[0].lower() for t in targets)
                assert ours == float(found > 0), (task, reply)
                theirs = common.process_results_part(doc, [reply])["4096"]
                assert theirs == found / len(targets)
                part_differs += ours != theirs
            compared += 1
    assert compared == 7 * len(RULER_TASKS)
    print(f"\nscorer beside lm-eval's RULER: {compared} replies over {len(RULER_TASKS)} tasks; "
          f"{part_differs} string_match_part replies with some but not all references differ (lm-eval's share found, "
          f"NVIDIA's and the lab's 1)")
