import email.utils
import time

import pytest
from lclab.models.errors import RetryableError
from lclab.models.retry import RetryPolicy, call_with_retries, is_retryable_status, parse_retry_after


@pytest.mark.parametrize("status, retryable", [(408, True), (409, True), (429, True), (500, True),
                                               (503, True), (400, False), (401, False), (404, False),
                                               (422, False)])
def test_which_statuses_are_retried(status, retryable):
    assert is_retryable_status(status) is retryable


def test_retry_after_forms():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({}) is None
    future = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8 <= parse_retry_after({"retry-after": future}) <= 10


def test_retry_after_wins_over_backoff_but_is_capped():
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    assert policy.delay(0, retry_after=2.0) == 2.0
    assert policy.delay(0, retry_after=60.0) == 5.0
    assert 0.5 <= policy.delay(0, None) <= 1.0
    assert 2.0 <= policy.delay(2, None) <= 4.0


def test_bounded_retries_then_the_error():
    calls, waits = [], []

    def flaky():
        calls.append(1)
        raise RetryableError("503", retry_after=0.0)

    with pytest.raises(RetryableError, match="gave up after 3 attempts"):
        call_with_retries(flaky, RetryPolicy(max_retries=2), sleep=waits.append)
    assert len(calls) == 3 and waits == [0.0, 0.0]


def test_success_after_failures():
    outcomes = iter([RetryableError("x"), RetryableError("y"), "done"])

    def fn():
        value = next(outcomes)
        if isinstance(value, Exception):
            raise value
        return value

    assert call_with_retries(fn, RetryPolicy(max_retries=3, base_delay=0), sleep=lambda s: None) == "done"
