"""The gateway's OpenAI path against a loopback server that injects faults."""

import json
import time

import pytest
from lclab import models as gateway
from lclab.models import Request, reset_backend_registry
from lclab.models.accounting import ACCOUNTING
from lclab.models.errors import ContextLengthError, FatalError, MissingAPIKeyError, RetryableError
from lclab.models.fault_server import FaultServer
from lclab.models.retry import RetryPolicy
from lclab.scoring.judge_kinds import CORRECTNESS


def judge_correct(judge_model: str, question: str, response: str, reference: str):
    return CORRECTNESS.judge(judge_model, {"question": question, "response": response, "reference": reference})


FAST = RetryPolicy(max_retries=3, base_delay=0.01, max_delay=1.0)


@pytest.fixture
def serve(monkeypatch):
    servers = []

    def start(**kwargs):
        server = FaultServer(**kwargs).__enter__()
        servers.append(server)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        reset_backend_registry()  # the backend reads the base URL when created
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)
    reset_backend_registry()


def ask(prompt="hi", **kwargs):
    kwargs.setdefault("retry", FAST)
    return gateway.complete("openai/fault-model", prompt, stage="test", request=Request(**kwargs))


def test_failures_then_success_are_retried_and_counted(serve):
    server = serve(faults=[503, 500, 429])
    assert ask().text == "ok"
    assert len(server.requests) == 4
    stats = ACCOUNTING.get("test")
    assert stats.retries == 3 and stats.calls == 4 and stats.errors == 0


def test_retry_after_is_honoured(serve):
    server = serve(faults=[{"status": 429, "headers": {"Retry-After": "0.6"}}])
    started = time.perf_counter()
    ask()
    assert time.perf_counter() - started >= 0.6
    assert len(server.requests) == 2


def test_retries_are_bounded(serve):
    server = serve(faults=[503] * 10)
    with pytest.raises(RetryableError, match="gave up after 4 attempts"):
        ask()
    assert len(server.requests) == 4
    assert ACCOUNTING.get("test").errors == 1


def test_garbage_body_is_retried_then_reported(serve):
    server = serve(faults=[{"garbage": True}] * 10)
    with pytest.raises(RetryableError, match="malformed response"):
        ask()
    assert len(server.requests) == 4


def test_a_hang_past_the_timeout_is_retried(serve):
    server = serve(faults=[{"hang": 2.0}])
    assert ask(timeout=0.5).text == "ok"
    assert len(server.requests) == 2  # the first call was given up at its timeout (waited out, it would be 1)
    assert ACCOUNTING.get("test").retries == 1


@pytest.mark.parametrize("status, body, error, hint", [
    (400, {"error": {"message": "This model's maximum context length is 4096 tokens"}},
     ContextLengthError, "context window"),
    (401, None, FatalError, "refused"),
    (404, None, FatalError, "served there"),
    (422, None, FatalError, "HTTP 422"),
])
def test_fatal_statuses_fail_at_once_with_advice(serve, status, body, error, hint):
    server = serve(faults=[{"status": status, "body": body}] if body else [status])
    with pytest.raises(error, match=hint):
        ask()
    assert len(server.requests) == 1


def test_missing_api_key_for_openai_says_what_to_do(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    reset_backend_registry()
    with pytest.raises(MissingAPIKeyError, match="export OPENAI_API_KEY"):
        gateway.complete("openai/gpt-4o-mini", "hi", stage="test")


def test_cache_key_ignores_timeout_and_retries_but_not_settings(serve):
    server = serve()
    ask(timeout=5)
    ask(timeout=50, retry=RetryPolicy(max_retries=9))
    assert len(server.requests) == 1
    ask(max_tokens=7)
    ask(seed=1)
    ask(temperature=0.7, sample=0)
    ask(temperature=0.7, sample=1)
    ask(temperature=0.7, sample=1)
    assert len(server.requests) == 5
    assert ACCOUNTING.get("test").cache_hits == 2


def test_cache_never_holds_the_api_key(serve, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123")
    serve()
    ask()
    for path in (tmp_path / "llm-cache").rglob("*.json"):
        assert "sk-secret-value-123" not in path.read_text()


def test_unparseable_judge_reply_is_repaired_once_then_reported_not_scored(serve):
    server = serve(reply="I think they match.")
    verdict = judge_correct("openai/fault-model", "Q?", "A", "A")
    assert verdict.value is None and not verdict.scored
    assert "no JSON object" in verdict.unscored
    # Asked for logprobs first (this endpoint returns none), then the reply and one repair round.
    assert len(server.requests) == 3 and server.requests[0]["logprobs"] and "logprobs" not in server.requests[1]
    assert server.requests[2]["messages"][-1]["content"].startswith("Your reply could not be used")
    stats = ACCOUNTING.get("judge")
    assert stats.parse_failures == 1 and stats.repairs == 1
    # A failure is never cached: asking again calls the model again.
    judge_correct("openai/fault-model", "Q?", "A", "A")
    assert len(server.requests) == 5  # and the endpoint is not asked for logprobs again


def test_an_endpoint_without_logprobs_is_asked_without_them_by_a_later_process_too(serve):
    from lclab.scoring import logprob

    server = serve(reply='{"correct": true}')
    for question in ("Q1?", "Q2?"):
        judge_correct("openai/fault-model", question, "A", "A")
    assert len(server.requests) == 3 and server.requests[0]["logprobs"]  # refused once, then never asked
    logprob._WITHOUT_LOGPROBS.clear()  # what a new process (a warm run under another run name) knows
    logprob._LOOKED_UP.clear()
    for question in ("Q2?", "Q1?"):  # Q2 first: its logprobs request was never sent, so never recorded
        assert judge_correct("openai/fault-model", question, "A", "A").value is True
    assert len(server.requests) == 3  # a warm run: 0 calls


def test_valid_judge_reply_is_parsed(serve):
    serve(reply='```json\n{"correct": true}\n```')
    # No logprobs from this endpoint: the verdict is flagged as read from the sampled token, its probability
    # is the verdict itself (1.0), never a made-up number, and the mass outside is unknown.
    verdict = judge_correct("openai/fault-model", "Q?", "A", "A")
    assert verdict.columns("judge_correct", error="judge_error") == {
        "judge_correct": True, "judge_correct_p": 1.0, "judge_correct_source": "sampled",
        "judge_correct_mass_outside": None, "judge_error": None}
    assert verdict.answer == '```json\n{"correct": true}\n```'  # the reply the verdict was read from


def test_json_mode_is_requested_from_the_endpoint(serve):
    server = serve(reply='{"x": 1}')
    assert ask(response_format="json").json == {"x": 1}
    assert server.requests[0]["response_format"] == {"type": "json_object"}
    assert json.dumps(server.requests[0]["messages"]) == '[{"role": "user", "content": "hi"}]'


def test_a_truncated_json_body_is_retried_named_and_counted(serve):
    server = serve(faults=[{"truncated": True}])
    assert ask().text == "ok"  # retried like a 5xx, then answered
    assert len(server.requests) == 2
    server = serve(faults=[{"truncated": True}] * 10)
    with pytest.raises(RetryableError, match=r"not whole JSON from http://127\.0\.0\.1:\d+/v1"):
        ask(prompt="another question")
    assert ACCOUNTING.get("test").errors == 1


def test_a_reply_far_past_its_budget_is_stored_cut_and_marked_and_the_run_goes_on(serve, tmp_path):
    from lclab.models.reply_limits import CHARS_PER_TOKEN_KEPT
    from lclab.runs.runner import answer_columns

    huge = "x" * 5_000_000  # a 5 MB reply to an 8-token question
    serve(reply=huge)
    reply = ask(max_tokens=8)
    assert len(reply.text) == CHARS_PER_TOKEN_KEPT * 8 and "reply truncated at 512 characters" in reply.note
    assert answer_columns(reply)["reply_note"] == reply.note
    cache = sum(p.stat().st_size for p in (tmp_path / "llm-cache").rglob("*.json"))
    assert cache < 10_000  # stored cut, not whole
    again = ask(max_tokens=8)  # from the cache: the same text and the same note
    assert again.cached and again.text == reply.text and again.note == reply.note
    serve(reply="ok")
    assert "reply_note" not in answer_columns(ask("a normal question", max_tokens=8))
