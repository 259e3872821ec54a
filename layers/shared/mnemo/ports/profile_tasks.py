"""Where profile work waits for a worker: the local profile worker's thread, or an SQS queue on AWS."""

from __future__ import annotations

from typing import Protocol

from mnemo.domain.profiles import ProfileTask


class ProfileTaskQueue(Protocol):
    def dispatch(self, task: ProfileTask, delay: float = 0.0) -> None:
        """Queue the task to run no sooner than `delay` seconds from now (at most 900: SQS's longest delay)."""
        ...
