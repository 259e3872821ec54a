"""The secret box port: authenticated encryption of the short secrets the service keeps at rest (the providers'
API keys a caller configures), so that whoever reads the store's files or items reads no key.

A sealed value is a string that says it is one (`sealed`), so a value an older version wrote in clear is still read
as it is, and sealed on the next write."""

from __future__ import annotations

from typing import Protocol


class SecretBox(Protocol):
    def seal(self, plaintext: str) -> str:
        """The value encrypted and authenticated, as a self-describing string (format version first)."""
        ...

    def open(self, sealed: str) -> str:
        """The value `seal` encrypted. Raises ConfigurationError when it was tampered with, sealed with another key
        or in a format this version does not know (never returns a wrong value)."""
        ...

    def sealed(self, value: str) -> bool:
        """Whether `value` is one `seal` made (else a value stored in clear)."""
        ...
