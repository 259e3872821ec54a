"""HS256 JSON Web Tokens (PyJWT) signed with the deployment's JWT secret. PyJWT (and the `cryptography` package it
loads) is imported on the first token encoded or decoded: a process that serves only API keys never loads it."""

from __future__ import annotations

import warnings
from typing import Any

from mnemo.errors import AuthenticationError

INVALID = "Invalid or expired token."
ALGORITHM = "HS256"
RECOMMENDED_SECRET_BYTES = 32


def _quiet_short_secrets() -> None:
    """A short secret is reported once at start-up (mnemo.composition.auth); PyJWT would repeat it on every token.
    (Adding the same filter again replaces it: the list does not grow.)"""
    from jwt.warnings import InsecureKeyLengthWarning

    warnings.filterwarnings("ignore", category=InsecureKeyLengthWarning)


class JwtTokenCodec:
    def __init__(self, secret: str) -> None:
        if not secret:
            raise ValueError("the JWT secret must not be empty")
        self._secret = secret

    def encode(self, claims: dict[str, Any]) -> str:
        import jwt

        _quiet_short_secrets()
        return jwt.encode(claims, self._secret, algorithm=ALGORITHM)

    def decode(self, token: str) -> dict[str, Any]:
        import jwt

        _quiet_short_secrets()
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                self._secret,
                algorithms=[ALGORITHM],
                options={"require": ["exp", "sub", "type", "jti"]},
            )
        except jwt.PyJWTError as exc:
            raise AuthenticationError(INVALID) from exc
        return claims
