"""Per-user API keys: `m0sk_` and 43 URL-safe characters. Only a hash of the value is ever stored."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

KEY_PREFIX = "m0sk_"
SHOWN_PREFIX_LENGTH = 12  # `m0sk_` and 7 characters: enough to tell keys apart in a list, far too few to guess
_FORMAT = re.compile(r"^m0sk_[A-Za-z0-9_-]{43}$")


@dataclass(frozen=True, slots=True)
class ApiKey:
    id: str
    user_id: str
    label: str
    key_prefix: str
    key_hash: str
    created_at: datetime
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def changed(self, **fields: Any) -> ApiKey:
        return replace(self, **fields)


def new_key_value() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def is_key_format(value: str) -> bool:
    return bool(_FORMAT.match(value))


def shown_prefix(value: str) -> str:
    return value[:SHOWN_PREFIX_LENGTH]


def key_digest(value: str) -> str:
    """SHA-256 of the key. The value carries 256 random bits, so a fast hash is as safe as a slow KDF here,
    and it keeps the per-request check cheap."""
    return hashlib.sha256(value.encode("utf-8")).hexdigest()
