"""The container: every service the process serves (ServedServices: the core and the platform's features), the
settings they were built from, and what to close at the end. It imports no backend module,
so that the backends' composition (local.py, aws.py) builds it and container.py picks the backend, with no loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mnemo.services.platform.served import ServedServices
from mnemo.settings import Settings

STOP_DEADLINE = 30.0  # seconds the workers get to stop, in all


@dataclass(kw_only=True)
class Container(ServedServices):
    settings: Settings
    closers: list[Callable[[], None]] = field(default_factory=list)  # last opened, first closed
    closed: bool = field(default=False, init=False)

    def close(self, deadline: float = STOP_DEADLINE) -> None:
        """Stop the workers (within `deadline` seconds), then close the platform (when it was built) and what was
        opened; once (the app's shutdown and the code after the server may both call it)."""
        if self.closed:
            return
        self.closed = True
        self.workers.stop(deadline)
        if self.features.built:
            self.platform.close()
        self.request_log.close()
        for close in reversed(self.closers):
            close()
