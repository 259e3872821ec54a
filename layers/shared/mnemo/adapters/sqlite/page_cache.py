"""Prewarming a data dir's files in the operating system's page cache, as PostgreSQL's pg_prewarm loads its buffers
after a restart: a serving process asks the kernel to read its SQLite files and the index's snapshot ahead, so that
the first search of each user does not wait on the disk for its rows.

A user's first search reads a few dozen rows by id, two pages each: on a large store whose file is out of the cache,
those reads are most of the search's time (the performance log, docs/benchmarks/log.md, has the figures). Asking the
kernel (`posix_fadvise(WILLNEED)`, chunk by chunk: one call over a whole file reads only the first few hundred
kilobytes) costs no copy into the process and none of its memory (page cache is not the process's RSS).

The files are opened in a child process, never in the serving one: POSIX drops every fcntl lock a process holds on
a file when it closes *any* descriptor of that file, and SQLite's locks (the database's, the WAL index's) are such
locks, so opening and closing the database in the process that has it open would let another process write or
checkpoint under its readers and writers (`tests/unit/test_page_cache.py` shows the lock kept).

Only when the files fit in half the memory the kernel reports available (`MemAvailable`): a data dir larger than that
would push out other processes' pages, and the cache keeps the pages searches touch anyway. Where the call does not
exist (macOS, Windows), nothing is done.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

CHUNK_BYTES = 8 << 20  # one readahead request per 8 MB
SHARE_OF_AVAILABLE = 0.5  # the files must fit in this share of the available memory
MEMINFO = Path("/proc/meminfo")
_log = logging.getLogger(__name__)


def supported() -> bool:
    return hasattr(os, "posix_fadvise")


def available_memory(meminfo: Path = MEMINFO) -> int | None:
    """The memory the kernel reports available (bytes), or None where it does not say."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def files_under(root: Path) -> list[Path]:
    """The regular files under root (none when it does not exist)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def prewarm(paths: Iterable[Path], available: int | None = None) -> int:
    """Ask the kernel to read these files into its page cache; the bytes asked for (0 when they do not fit in
    SHARE_OF_AVAILABLE of the available memory, or the call is not supported). Files that vanish are skipped."""
    if not supported():
        return 0
    sized: list[tuple[Path, int]] = []
    for path in paths:
        try:
            sized.append((path, path.stat().st_size))
        except OSError:
            continue
    total = sum(size for _, size in sized)
    room = available if available is not None else available_memory()
    if room is None or total > room * SHARE_OF_AVAILABLE:
        _log.info("not prewarming %d MB of data files: more than half the available memory", total >> 20)
        return 0
    asked = 0
    for path, size in sized:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            for offset in range(0, size, CHUNK_BYTES):
                os.posix_fadvise(fd, offset, min(CHUNK_BYTES, size - offset), os.POSIX_FADV_WILLNEED)
            asked += size
        except OSError:
            continue
        finally:
            os.close(fd)
    return asked


def prewarm_in_child(root: Path) -> subprocess.Popen[bytes] | None:
    """prewarm(files_under(root)) in a child process, started (None where prewarming is not supported): see the
    module's note on locks for why not in this process. A daemon thread reaps the child; the caller may wait."""
    if not supported():
        return None
    child = subprocess.Popen(
        [sys.executable, "-m", __name__, str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
    )
    threading.Thread(target=child.wait, name="mnemo-prewarm", daemon=True).start()
    return child


def prewarm_in_background(root: Path) -> None:
    """What a serving process does at start: prewarm_in_child, not waited for (a server answers meanwhile)."""
    try:
        prewarm_in_child(root)
    except OSError as exc:  # no interpreter to start (a frozen build, a sandbox): serve without it
        _log.info("not prewarming %s: %s", root, exc)


def main(argv: list[str]) -> int:
    for root in argv:
        try:
            prewarm(files_under(Path(root)))
        except OSError:  # the directory changed under the walk: nothing to warm is not an error
            continue
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
