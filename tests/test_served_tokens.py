"""Exact budgets on a served model: llama.cpp's own server on loopback counts the prompt with its chat template,
the count equals what the server reports for the call, and a budget over its window is refused with numbers."""

import pytest
from conftest import SMOKE_CARD_TEXTS
from lclab.depth_sweep import run_depth_sweep
from lclab.depth_sweep.parameters import Parameters as SweepParameters
from lclab.models import (
    ContextLengthError,
    Request,
    complete,
    context_window,
    count_prompt_tokens,
    reset_backend_registry,
    tokenizer_name,
)

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def llama_server(bundled_llama_server):
    reset_backend_registry()
    yield f"openai/qwen@{bundled_llama_server}"
    reset_backend_registry()


def test_the_servers_own_tokenizer_counts_exactly_what_the_server_reads(llama_server):
    assert "llama.cpp /apply-template + /tokenize" in tokenizer_name(llama_server)
    assert context_window(llama_server) == 2048
    prompts = ["Hi.", "Count the words: one two three.", [{"role": "system", "content": "Be brief."},
                                                          {"role": "user", "content": "Paris is in which country?"}]]
    for prompt in prompts:
        reply = complete(llama_server, prompt, stage="t", request=Request(max_tokens=1))
        assert count_prompt_tokens(llama_server, prompt) == reply.prompt_tokens


def test_a_budget_fills_to_the_servers_count_and_one_over_the_window_is_refused(llama_server, kept_model_calls):
    # What the served model is asked to fill is the question here, not what a judge says of its reply: the fake
    # judge spares the server its six card verdicts (5 of this test's 15 s). The server's reply, with its count of
    # the prompt, is kept across sessions (a fresh clone asks the server; the budget is filled with its tokenizer
    # every time).
    result = run_depth_sweep(SweepParameters(model=llama_server, judge_model="fake/judge", n_qa=1,
                                             context_tokens=[900], depths=[0], run_name="served", max_answer_tokens=8,
                                             card_texts=SMOKE_CARD_TEXTS))
    used = result.items["prompt_tokens"].iloc[0]  # as the server counted the call
    assert 700 < used <= 900
    with pytest.raises(ContextLengthError, match=r"a 4000-token prompt plus 8 reply tokens is 4008 tokens, more than "
                                                 r"the 2048-token context window"):
        run_depth_sweep(SweepParameters(model=llama_server, judge_model="fake/judge", n_qa=1, context_tokens=[4000],
                                        depths=[0], run_name="too-long", max_answer_tokens=8))


def test_lengths_beyond_the_servers_window_are_refused_or_left_out_by_name(llama_server):
    # The window (2048) is read from llama.cpp's /props: a 4000-token length cannot fit with its reply.
    from lclab.models import within_window

    with pytest.raises(ContextLengthError, match=r"context_tokens \[4000\] do not fit the 2048-token window"):
        within_window(llama_server, [500, 1000, 4000], 32)
    kept, note = within_window(llama_server, [500, 1000, 4000], 32, "skip")
    assert kept == [500, 1000] and "[4000]" in note and "beyond_window: skip" in note
    with pytest.raises(ContextLengthError):  # nothing would be left to run
        within_window(llama_server, [4000], 32, "skip")


def test_a_synthetic_run_on_the_server_answers_the_lengths_that_fit_and_names_the_others(llama_server,
                                                                                         kept_model_calls):
    from lclab.synthetic import run_synthetic
    from lclab.synthetic.parameters import Parameters as SyntheticParameters

    result = run_synthetic(SyntheticParameters(model=llama_server, tasks=["needle_single"], context_tokens=[400, 4000],
                                               depths=[50], value_kinds=["numbers"], qa_path="", max_answer_tokens=16,
                                               max_workers=4, run_name="served-window", beyond_window="skip"))
    assert result.items["context_tokens"].tolist() == [400]
    assert result.items["prompt_tokens"].tolist() == result.items["prompt_tokens_counted"].tolist()
    assert any("[4000]" in note for note in result.notes)
