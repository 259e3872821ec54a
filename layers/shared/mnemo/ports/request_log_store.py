"""The record store port for the API call log."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from mnemo.domain.request_log import RequestLogEntry


class RequestLogStore(Protocol):
    def append(self, entries: Sequence[RequestLogEntry]) -> None: ...

    def recent(self, limit: int) -> list[RequestLogEntry]:
        """The newest `limit` entries, newest first."""
        ...

    def prune(self, before: datetime) -> int:
        """Delete entries created before the given time; returns how many."""
        ...
