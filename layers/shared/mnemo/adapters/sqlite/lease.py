"""Which of the processes serving one data dir runs the work only one may run (mnemo serve --workers N): the one
holding an exclusive lock on a file in it. The lock goes with the process, however it ends, so the process started
in place of a leader that died takes it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO


class Lease:
    def __init__(self, handle: IO[str]) -> None:
        self._handle: IO[str] | None = handle

    @classmethod
    def taken(cls, path: Path) -> Lease | None:
        """The lease on `path`, or None when another process holds it. Without fcntl (not POSIX): always taken (one
        process serves a data dir there)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o600), "r+")  # held open as long as the lease
        try:
            import fcntl
        except ImportError:
            return cls(handle)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        os.fchmod(handle.fileno(), 0o600)  # whatever the umask
        return cls(handle)

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the file releases the lock
            self._handle = None
