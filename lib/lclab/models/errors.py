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
