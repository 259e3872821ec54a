"""One SQLite file in WAL mode: a single writer behind a lock, one reader connection per thread.

Writes are serialised in-process, so concurrent requests never see "database is locked"; readers never
block the writer and see only committed data. Processes sharing the file (mnemo serve --workers N) also take turns
at writing through an exclusive `flock` on the file, which wakes the next writer as soon as one commits (SQLite's
own busy handler sleeps 1, 2, 5, 10… ms between tries; flock and SQLite's fcntl locks do not interfere).

The file holds every memory and every password and key hash: its directory is made 0700 and the file 0600
(whatever the umask) before SQLite opens it, and SQLite gives its -wal and -shm files the main file's mode. A
directory or file an earlier version left open to others is tightened, with a warning.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mnemo.errors import NotFoundError

try:
    import fcntl
except ImportError:  # Windows: one process writes a file there
    fcntl = None  # type: ignore[assignment]

PRIVATE_DIRECTORY = 0o700
PRIVATE_FILE = 0o600
BUSY_TIMEOUT_MS = 30_000
CHECKPOINT_WAIT_MS = 2_000  # how long a checkpoint waits for readers of older snapshots before leaving the WAL
CHECKPOINT_RETRY_EVERY = 0.5  # seconds between the tries of a checkpoint a reader held off, in the background ...
CHECKPOINT_RETRY_FOR = 600.0  # ... for this long (then the next checkpoint, or the close, takes the WAL along)
DROPPED = "The store was closed: its project was deleted."
_log = logging.getLogger(__name__)


class Database:
    def __init__(self, path: Path) -> None:
        self.path = path
        make_private(path)
        self._write_lock = threading.RLock()
        self._turns = _turns_of(path)  # the descriptor the processes writing this file flock in turn (None: none)
        self._writer = self._connect()
        with self._turn():  # two processes switching a new file to WAL at once: one would fail, not wait
            self._writer.execute("PRAGMA journal_mode=WAL")
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._depth = 0
        self._dropped = False
        self._retry: threading.Timer | None = None  # the background retry of a checkpoint a reader held off
        self._retry_until = 0.0
        self._retry_lock = threading.Lock()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30.0)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA secure_delete=ON")  # deleted content is overwritten with zeros, not left in free space
        return conn

    def watcher(self) -> sqlite3.Connection:
        """A connection of its own for `PRAGMA data_version` (it changes when another connection, of this process or
        another, commits): closed with the file. The caller serialises its use."""
        conn = self._connect()
        with self._readers_lock:
            self._readers.append(conn)
        return conn

    def checkpoint(self) -> bool:
        """Copy every WAL frame into the main file and truncate the WAL to nothing (after a delete: the main file's
        older page images still hold what was deleted until the WAL's newer ones are copied over them). Waits
        (CHECKPOINT_WAIT_MS) for readers of older snapshots to finish; False when one still held the WAL: the
        checkpoint is then tried again in the background every CHECKPOINT_RETRY_EVERY seconds until it succeeds
        (a reader's snapshot ends with its statement), without holding up the caller or the writers meanwhile."""
        done = self._checkpoint_once()
        if not done:
            self._retry_later()
        return done

    def _retry_later(self) -> None:
        with self._retry_lock:
            self._retry_until = time.monotonic() + CHECKPOINT_RETRY_FOR
            if self._retry is None:
                _log.warning("%s: a reader held the WAL; the checkpoint is tried again until it succeeds", self.path)
                self._schedule_retry()

    def _schedule_retry(self) -> None:
        self._retry = threading.Timer(CHECKPOINT_RETRY_EVERY, self._retry_checkpoint)
        self._retry.daemon = True
        self._retry.start()

    def _retry_checkpoint(self) -> None:
        try:
            done = self._checkpoint_once()
        except (NotFoundError, sqlite3.Error):  # closed or dropped meanwhile: its close saw to the WAL
            done = True
        with self._retry_lock:
            if self._retry is None:  # cancelled by close
                return
            self._retry = None
            if done:
                _log.info("%s: the checkpoint a reader held off is done", self.path)
            elif time.monotonic() < self._retry_until:
                self._schedule_retry()
            else:
                _log.warning("%s: readers held the WAL throughout; the next checkpoint takes it along", self.path)

    def _cancel_retry(self) -> None:
        with self._retry_lock:
            if self._retry is not None:
                self._retry.cancel()
                self._retry = None

    def _checkpoint_once(self) -> bool:
        with self._write_lock:
            if self._dropped:
                raise NotFoundError(DROPPED)
            if self._depth:
                raise RuntimeError("checkpoint() inside a write transaction")
            self._writer.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
            try:
                busy, _frames, _done = self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                self._writer.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        return not busy

    def _truncate_wal(self) -> None:
        """The closing checkpoint: best effort (a failure is logged, and the file still closes)."""
        try:
            self._writer.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
            busy, _frames, _done = self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            _log.warning("%s: the WAL was not checkpointed at close: %s", self.path, exc)
            return
        if busy:
            _log.info("%s: another process holds the WAL; it truncates it when it closes", self.path)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A transaction on the writer connection; nested calls join the outer transaction."""
        with self._write_lock:
            if self._dropped:
                raise NotFoundError(DROPPED)
            if self._depth:
                self._depth += 1
                try:
                    yield self._writer
                finally:
                    self._depth -= 1
                return
            with self._turn():
                self._writer.execute("BEGIN IMMEDIATE")
                self._depth = 1
                try:
                    yield self._writer
                except BaseException:
                    self._writer.execute("ROLLBACK")
                    raise
                else:
                    self._writer.execute("COMMIT")
                finally:
                    self._depth = 0

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """This process's turn at writing the file, among the processes sharing it (the caller holds the write
        lock, or is the constructor). SQLite answers some lock upgrades with "database is locked" at once, without
        waiting: a switch to WAL, or a schema script, racing another process's; taking turns first avoids them."""
        if self._turns is None:
            yield
            return
        fcntl.flock(self._turns, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self._turns, fcntl.LOCK_UN)

    def read(self) -> sqlite3.Connection:
        """This thread's reader connection (the writer's, inside a write on this thread)."""
        if self._depth and self._write_lock._is_owned():  # type: ignore[attr-defined]
            return self._writer
        if self._dropped:
            raise NotFoundError(DROPPED)
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    def executescript(self, script: str) -> None:
        """A schema script, outside any write transaction (it commits what is open), in this process's turn."""
        with self._write_lock:
            if self._depth:
                raise RuntimeError("executescript() inside a write transaction")
            with self._turn():
                self._writer.executescript(script)

    def close(self) -> None:
        """Close every connection, the WAL first checkpointed into the main file and truncated: what a write
        replaced (a provider key, a deleted memory) does not stay in it after a clean stop. Another process still
        reading the file (mnemo serve --workers N) may keep the WAL; the last one to close truncates it."""
        self._cancel_retry()
        with self._readers_lock:
            for conn in self._readers:
                conn.close()
            self._readers.clear()
        with self._write_lock, self._turn():
            self._truncate_wal()
            self._writer.close()
        if self._turns is not None:
            os.close(self._turns)
            self._turns = None

    def close_in_use(self) -> None:
        """Close a file other threads may be reading (its project is being deleted): the writer is closed behind
        the write lock, and every later read or write is a NotFoundError; the readers of other threads are
        interrupted, not closed (closing a connection another thread is using crashes the process), and close
        when their threads drop them."""
        self._cancel_retry()
        with self._write_lock:
            self._dropped = True
            self._writer.close()
        with self._readers_lock:
            for conn in self._readers:
                conn.interrupt()
            self._readers.clear()
        if self._turns is not None:
            os.close(self._turns)
            self._turns = None


def _turns_of(path: Path) -> int | None:
    if fcntl is None:  # not a POSIX system: one process writes a file there
        return None
    return os.open(path, os.O_RDONLY)


def make_private(path: Path) -> None:
    """The database file's directory made 0700 and the file 0600 (created empty when new, which SQLite takes as an
    empty database); existing ones, and their -wal and -shm files, tightened."""
    _private_directory(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        for suffix in ("", "-wal", "-shm"):
            _tighten(Path(f"{path}{suffix}"))
        return
    try:
        os.fchmod(fd, PRIVATE_FILE)  # the umask may have taken bits of the owner's too
    finally:
        os.close(fd)


def _private_directory(directory: Path) -> None:
    existed = directory.is_dir()
    directory.mkdir(mode=PRIVATE_DIRECTORY, parents=True, exist_ok=True)
    mode = directory.stat().st_mode
    if stat.S_IMODE(mode) == PRIVATE_DIRECTORY:
        return
    if mode & stat.S_ISVTX:  # a directory shared on purpose (/tmp): not ours to close; the files still are private
        _log.warning("%s is a shared directory: the data dir should be a directory of its own", directory)
        return
    try:
        directory.chmod(PRIVATE_DIRECTORY)
    except PermissionError:
        _log.warning("%s is readable by others and its mode cannot be changed: make it 0700", directory)
        return
    if existed and mode & 0o077:
        _log.warning("%s was open to other users: its mode is now 0700", directory)


def _tighten(path: Path) -> None:
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            path.chmod(PRIVATE_FILE)
            _log.warning("%s was readable by others: its mode is now 0600", path)
    except FileNotFoundError:  # no -wal or -shm file, or another process removed it
        return
    except PermissionError:
        _log.warning("%s is readable by others and its mode cannot be changed: make it 0600", path)
