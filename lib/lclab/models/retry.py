"""Bounded retries with exponential backoff that honours Retry-After."""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass
from typing import Callable, TypeVar

from .errors import RetryableError

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 409, 429})  # plus every 5xx


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or 500 <= status <= 599


def parse_retry_after(headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 1.0  # seconds before the first retry, doubled each time
    max_delay: float = 30.0  # cap on any single wait, Retry-After included

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_delay)
        backoff = self.base_delay * (2**attempt)
        # Jitter spreads out workers that failed together so they don't retry together.
        return min(self.max_delay, backoff * (0.5 + random.random() / 2))


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy,
    on_retry: Callable[[RetryableError, float], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call `fn`; on RetryableError wait and try again, at most `policy.max_retries` times."""
    attempt = 0
    while True:
        try:
            return fn()
        except RetryableError as err:
            if attempt >= policy.max_retries:
                raise RetryableError(
                    f"gave up after {attempt + 1} attempts: {err}", err.retry_after
                ) from err
            wait = policy.delay(attempt, err.retry_after)
            if on_retry is not None:
                on_retry(err, wait)
            sleep(wait)
            attempt += 1
