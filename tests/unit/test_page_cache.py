"""Prewarming the data dir's files in the page cache (mnemo.adapters.sqlite.page_cache), and who asks for it."""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemo.adapters.sqlite import page_cache
from mnemo.adapters.sqlite.database import Database
from mnemo.composition import local
from mnemo.composition.container import build_container
from mnemo.settings import Settings
from tests.support.waits import seconds

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="mincore and posix_fadvise are Linux calls")


def resident_share(path: Path) -> float:
    """The share of the file's pages in the page cache (mincore over a read-only mapping)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    size = path.stat().st_size
    pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    # A copy-on-write mapping is writable for ctypes and never written: its pages are the file's cached pages.
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_COPY) as mapped:
        start = ctypes.c_char.from_buffer(mapped)
        vector = (ctypes.c_ubyte * pages)()
        failed = libc.mincore(ctypes.c_void_p(ctypes.addressof(start)), ctypes.c_size_t(size), vector)
        del start  # the mapping closes only once no ctypes object points into it
        if failed:
            raise OSError(ctypes.get_errno(), "mincore failed")
    return sum(v & 1 for v in vector) / pages


def written(path: Path, megabytes: int) -> Path:
    with path.open("wb") as handle:
        handle.write(os.urandom(megabytes << 20))
        handle.flush()
        os.fsync(handle.fileno())
    return path


@linux_only
def test_prewarm_brings_a_file_back_into_the_page_cache(tmp_path: Path) -> None:
    # Given a file written to disk and then dropped from the page cache
    data = written(tmp_path / "mnemo.sqlite3", 24)
    fd = os.open(data, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    if resident_share(data) > 0.5:
        pytest.skip("this filesystem keeps files in memory (tmpfs): there is no page cache to warm")
    # When it is prewarmed, as a server does it (in a child process)
    child = page_cache.prewarm_in_child(tmp_path)
    assert child is not None
    assert child.wait(timeout=seconds(60)) == 0
    # Then the kernel reads all of it in
    deadline = time.monotonic() + seconds(10)
    while resident_share(data) < 0.99 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert resident_share(data) >= 0.99


def test_files_that_do_not_fit_in_half_the_available_memory_are_not_prewarmed(tmp_path: Path) -> None:
    data = written(tmp_path / "mnemo.sqlite3", 1)
    assert page_cache.prewarm([data], available=(1 << 20) * 2 - 1) == 0
    assert page_cache.prewarm([data], available=(1 << 20) * 2) == (1 << 20 if page_cache.supported() else 0)


def test_vanished_files_are_skipped_and_the_walk_finds_nested_files(tmp_path: Path) -> None:
    (tmp_path / "mnemo.sqlite3.index").mkdir()
    nested = written(tmp_path / "mnemo.sqlite3.index" / "codes.npy", 1)
    top = written(tmp_path / "mnemo.sqlite3", 1)
    assert page_cache.files_under(tmp_path) == [top, nested]
    assert page_cache.files_under(tmp_path / "absent") == []
    asked = page_cache.prewarm([tmp_path / "gone", top], available=1 << 40)
    assert asked == (top.stat().st_size if page_cache.supported() else 0)


def test_available_memory_is_read_from_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24683104 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n")
    assert page_cache.available_memory(meminfo) == 2048 * 1024
    meminfo.write_text("MemTotal:       24683104 kB\n")
    assert page_cache.available_memory(meminfo) is None
    assert page_cache.available_memory(tmp_path / "absent") is None


@pytest.mark.parametrize(("serves_http", "enabled", "expected"), [(True, True, 1), (True, False, 0), (False, True, 0)])
def test_a_serving_process_prewarms_its_data_dir(
    tmp_path: Path, registry, monkeypatch: pytest.MonkeyPatch, serves_http: bool, enabled: bool, expected: int
) -> None:
    asked: list[Path] = []
    monkeypatch.setattr(local, "prewarm_in_background", asked.append)
    settings = Settings(data_dir=tmp_path / "data", auth_disabled=True, prewarm_page_cache=enabled)
    container = build_container(settings, registry, serves_http=serves_http)
    container.close()
    assert asked == [settings.data_dir] * expected


LOCKED_ELSEWHERE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    conn.execute("BEGIN IMMEDIATE")
except sqlite3.OperationalError as exc:
    print(exc)
else:
    print("got the write lock")
"""


@linux_only
def test_prewarming_keeps_the_serving_process_sqlite_locks(tmp_path: Path) -> None:
    # Given a process in the middle of a write transaction on its database (SQLite holds fcntl locks on the file)
    db = Database(tmp_path / "mnemo.sqlite3")
    try:
        with db.write() as conn:
            conn.execute("CREATE TABLE t (x)")
            # When its data dir is prewarmed (closing a descriptor of the file in this process would drop every
            # fcntl lock the process holds on it)
            child = page_cache.prewarm_in_child(tmp_path)
            assert child is not None and child.wait(timeout=seconds(60)) == 0
            # Then another process still cannot write
            other = subprocess.run(
                [sys.executable, "-c", LOCKED_ELSEWHERE, str(db.path)],
                check=True,
                capture_output=True,
                text=True,
                timeout=seconds(60),
            )
            assert other.stdout.strip() == "database is locked"
    finally:
        db.close()
