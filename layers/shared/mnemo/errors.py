"""Typed errors of the core. The API maps each kind to one HTTP status in one place (mnemo.api.errors)."""

from __future__ import annotations


class MnemoError(Exception):
    """Base of every error the core raises on purpose. `key`: the key of the message in the answer's body
    (`{"detail": message}`; the platform's webhook routes answer `{"error": message}`, as Mem0's do)."""

    key = "detail"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def keyed(self, key: str) -> MnemoError:
        """The same error, answered under another key."""
        self.key = key
        return self


class ValidationError(MnemoError):
    """The caller sent something invalid (HTTP 400)."""


class FieldsError(ValidationError):
    """Invalid fields, answered as Mem0's platform does for webhooks (HTTP 400): an object keyed by field name,
    each a list of messages (`{"name": ["This field is required."]}`)."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{name}: {' '.join(messages)}" for name, messages in fields.items()))
        self.fields = fields


class PayloadTooLargeError(ValidationError):
    """What the caller sent is larger than one request may be (HTTP 413); the message says the limit."""


class NotFoundError(MnemoError):
    """The thing asked for does not exist, or is not the caller's to see (HTTP 404)."""


class ConflictError(MnemoError):
    """The change clashes with the current state (HTTP 409)."""


class AuthenticationError(MnemoError):
    """No valid credentials (HTTP 401). `challenge` marks the "none were sent" case, answered with
    `WWW-Authenticate: Bearer`."""

    def __init__(self, message: str, *, challenge: bool = False) -> None:
        super().__init__(message)
        self.challenge = challenge


class PermissionDeniedError(MnemoError):
    """The caller is known but may not do this (HTTP 403)."""


class RateLimitedError(MnemoError):
    """Too many calls from one client (HTTP 429); `retry_after` is in whole seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UnavailableError(MnemoError):
    """A part of the service the request needs is down for now, such as the job queue (HTTP 503); retry."""


class BackendBusyError(UnavailableError):
    """A service the request needs (the database, the search index) is throttling or down, past the retries made
    for it (HTTP 503 with Retry-After, in whole seconds): the same request may succeed a little later."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ServerMisconfiguredError(MnemoError):
    """The deployment lacks something it needs to answer, such as the JWT secret (HTTP 500)."""


class ConfigurationError(MnemoError):
    """The service or a provider is configured wrongly (HTTP 400 when it came from the caller)."""


class ProviderError(MnemoError):
    """An upstream provider (LLM or embedder) failed (HTTP 502). `code` says what kind of failure."""

    def __init__(self, message: str, code: str = "unknown") -> None:
        super().__init__(message)
        self.code = code
