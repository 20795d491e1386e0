"""The errors a model call can end in, each saying what to do about it."""

from __future__ import annotations


class LLMError(RuntimeError):
    """Base class for everything the gateway raises."""

    endpoint: str | None = None  # the replica that failed, when a served model has several


class RetryableError(LLMError):
    """A transient failure (408, 409, 429, 5xx, connection, timeout, malformed body)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class FatalError(LLMError):
    """A failure that retrying cannot fix; the message says what to change."""


class ContextLengthError(FatalError):
    """The prompt does not fit the model's context window."""


class LogprobsUnavailableError(FatalError):
    """Logprobs were asked for, and the endpoint or model does not return them."""


class CacheError(FatalError):
    """The model cache folder cannot be written."""


class MissingAPIKeyError(FatalError):
    """A remote model was asked for but its key is not in the environment."""


class ParseError(LLMError):
    """Structured output was asked for, and the reply (after one repair) was not valid."""

    def __init__(self, message: str, raw_text: str):
        super().__init__(message)
        self.raw_text = raw_text


# What one item can cause, and so what the runner (lclab.runs.runner) records as that item's failure: a model
# call's errors (the gateway's, after its retries: statuses, timeouts, replies that do not parse, a prompt over
# the window), a value the item's data or reply makes impossible (ValueError: a context budget its passage does
# not fit, a verdict that does not parse), a connection or a timeout outside the gateway (an embedding or
# vector-store server). Anything else (TypeError, KeyError, AttributeError, ...) is a bug in the lab: it stops
# the run with its traceback, and the rows finished before it are kept.
ITEM_ERRORS: tuple[type[BaseException], ...] = (LLMError, ValueError, ConnectionError, TimeoutError)


class NotInCacheError(RuntimeError):
    """A replay (`python -m lclab.runs.rescore`) needed a reply that is not in the model cache. Not an item's
    failure (not in ITEM_ERRORS): it stops the run, since a replay that called the model or scored the items it
    could not replay as failures would not be the run it replays."""
