"""The token codec port: signs claims into a compact token and checks them on the way back."""

from __future__ import annotations

from typing import Any, Protocol


class TokenCodec(Protocol):
    def encode(self, claims: dict[str, Any]) -> str: ...

    def decode(self, token: str) -> dict[str, Any]:
        """The claims of a token with a valid signature that has not expired. Raises AuthenticationError
        ("Invalid or expired token.") otherwise."""
        ...
