"""A window of time a query names ("last May", "on 8 May 2023"), as a pack's time words resolve it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True, slots=True)
class Window:
    start: datetime  # inclusive, UTC
    end: datetime  # exclusive

    def holds(self, moment: datetime) -> bool:
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        return self.start <= moment < self.end
