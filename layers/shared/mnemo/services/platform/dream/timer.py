"""Dream's local schedule: a Worker of `mnemo serve` (the leader's) that ticks the DreamScheduler every
`every_seconds`, the first tick one period after start (on AWS an EventBridge schedule invokes the Dream scheduler
function instead)."""

from __future__ import annotations

import logging
import threading

from mnemo.services.platform.dream.schedule import DreamScheduler
from mnemo.services.workers import Worker

log = logging.getLogger("mnemo.platform.dream")


class DreamTimer(Worker):
    name = "dream-schedule"
    leader_only = True  # one process of several ticks the schedule

    def __init__(self, scheduler: DreamScheduler, every_seconds: float) -> None:
        super().__init__()
        self._scheduler = scheduler
        self._every = every_seconds

    def run(self, stopping: threading.Event) -> None:
        while not stopping.wait(self._every):
            try:
                self._scheduler.tick()
            except Exception:  # a tick that fails is logged; the next one tries again
                log.exception("a dream schedule tick failed")
