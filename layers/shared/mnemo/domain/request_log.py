"""One entry of the API call log: what was called and by whom, never a body, a token or a key."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class RequestLogEntry:
    id: str
    method: str
    path: str  # without the query string
    status_code: int
    latency_ms: float
    auth_type: str  # an AuthMode value
    created_at: datetime
    user_id: str | None = None
    key_prefix: str | None = None  # the shown prefix of a per-user key, never the key
    request_id: str | None = None
