"""Memory namespaces on the embedded backend: one SQLite file per namespace under `<data dir>/namespaces/`.

Each file holds the namespace's memories, history, keyword index and access log (the retrievals memory decay ranks
by); its vector index is loaded when the namespace is first opened. Separate files make a cross-namespace read
impossible: a namespace's storage has no handle on any other file.

With `outbox`, each file also holds the outbox of its namespace's changes (the webhook events its store writes
in the same transaction as each change); `outboxes()` finds them, in the files open in this process and in those
a process before it left events in.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import IndexTuning
from mnemo.adapters.sqlite.memory_index import snapshot_files as index_snapshot
from mnemo.adapters.sqlite.storage import open_storage
from mnemo.ports.change_outbox import ChangeOutbox
from mnemo.ports.facets import IndexWords
from mnemo.ports.memory_namespaces import NamespaceStorage

_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SUFFIX = ".sqlite3"
_log = logging.getLogger(__name__)


class SqliteMemoryNamespaces:
    def __init__(
        self,
        root: Path,
        *,
        outbox: bool = False,
        on_outbox: Callable[[], None] | None = None,
        tuning: IndexTuning | None = None,
        facets: IndexWords,
        shared: bool = False,
    ) -> None:
        """`shared`: other processes write to these files too (mnemo serve --workers): every call looks for files
        they wrote events in (the relay runs in one process only)."""
        self.root = root
        self._facets = facets
        self._tuning = tuning
        self._outbox = outbox
        self._on_outbox = on_outbox
        self._open: dict[str, tuple[Database, NamespaceStorage]] = {}
        self._swept = False  # whether outboxes() has looked for closed files with pending events
        self._shared = shared
        self._lock = threading.Lock()

    def path_of(self, namespace: str) -> Path:
        if not _SAFE.match(namespace):
            raise ValueError(f"Invalid namespace: {namespace!r}")
        return self.root / f"{namespace}{_SUFFIX}"

    def open(self, namespace: str) -> NamespaceStorage:
        with self._lock:
            return self._opened(namespace)

    def _opened(self, namespace: str) -> NamespaceStorage:
        """The namespace's storage, opened now if it is not open (the caller holds the lock)."""
        opened = self._open.get(namespace)
        if opened is None:
            database = Database(self.path_of(namespace))
            try:
                storage = open_storage(
                    database,
                    outbox_namespace=namespace if self._outbox else None,
                    on_outbox=self._on_outbox,
                    accesses=True,
                    tuning=self._tuning,
                    facets=self._facets,
                )
            except BaseException:
                database.close()
                raise
            opened = (database, storage)
            self._open[namespace] = opened
        return opened[1]

    def drop(self, namespace: str) -> None:
        path = self.path_of(namespace)
        with self._lock:
            opened = self._open.pop(namespace, None)
            if opened is not None:
                opened[0].close_in_use()  # a request may still be reading it
            for suffix in ("", "-wal", "-shm"):
                _overwritten_and_removed(Path(f"{path}{suffix}"))
            snapshot = Path(f"{path}.index")  # storage.snapshot_path: a snapshot left by a run before this one
            for file in sorted(snapshot.glob("*")) if snapshot.is_dir() else ():
                _overwritten_and_removed(file)
            index_snapshot.remove(snapshot)
            Path(f"{snapshot}.lock").unlink(missing_ok=True)  # the snapshot's lock file (empty), which no one holds now

    def stored_namespaces(self) -> list[str]:
        """Every namespace with a file under the root, open in this process or not."""
        found = (p.name[: -len(_SUFFIX)] for p in self.root.glob(f"*{_SUFFIX}")) if self.root.is_dir() else ()
        return sorted(name for name in found if _SAFE.match(name))

    def outboxes(self) -> list[ChangeOutbox]:
        """The outbox of every open namespace and, at the first call, of every namespace whose file holds
        unpublished events though it is not open (written by a process before this one, which died): that
        namespace is opened now. Later calls look at the open ones only (a write opens its namespace first), so a
        relay polling every second does not read every project's file. Empty without `outbox`."""
        if not self._outbox:
            return []
        with self._lock:
            found = {name: storage.outbox for name, (_db, storage) in self._open.items() if storage.outbox is not None}
            swept, self._swept = self._swept and not self._shared, True
        for name in () if swept else self.stored_namespaces():
            if name in found or not _has_pending(self.path_of(name)):
                continue
            with self._lock:
                if name not in self._open and not self.path_of(name).exists():
                    continue  # dropped since it was peeked at: not to be made again
                outbox = self._opened(name).outbox
            if outbox is not None:
                found[name] = outbox
        return [found[name] for name in sorted(found)]

    def close(self) -> None:
        with self._lock:
            for database, storage in self._open.values():
                if storage.close is not None:
                    storage.close()
                database.close()
            self._open.clear()


def _overwritten_and_removed(path: Path) -> None:
    """The file's bytes overwritten with zeros before it is unlinked (a dropped project's memories are not left in
    the freed blocks for whoever reads the disk next; best effort: a copy-on-write filesystem, a snapshot or an
    SSD's wear levelling may still hold the old blocks)."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    with path.open("r+b") as out:
        zeros = bytes(1 << 20)
        for _ in range(0, size, len(zeros)):
            out.write(zeros)
        out.flush()
        os.fsync(out.fileno())
    path.unlink(missing_ok=True)


def _has_pending(path: Path) -> bool:
    """Whether the namespace file holds outbox rows: a read-only look that opens nothing of the namespace's (a
    file from before outboxes, or not a database at all, has none)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error:
        return False
    try:
        return conn.execute("SELECT 1 FROM outbox LIMIT 1").fetchone() is not None
    except sqlite3.OperationalError:  # no outbox table (yet): nothing pending
        return False
    except sqlite3.DatabaseError:
        _log.warning("namespace file %s could not be read for pending webhook events", path, exc_info=True)
        return False
    finally:
        conn.close()
