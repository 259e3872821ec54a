"""Memory namespaces on the embedded backend: one SQLite file per namespace under `<data dir>/namespaces/`.

Each file holds the namespace's memories, history and keyword index; its vector index is loaded when the
namespace is first opened. Separate files make a cross-namespace read impossible: a namespace's storage has no
handle on any other file.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.storage import open_storage
from mnemo.ports.memory_namespaces import NamespaceStorage

_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SUFFIX = ".sqlite3"


class SqliteMemoryNamespaces:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._open: dict[str, tuple[Database, NamespaceStorage]] = {}
        self._lock = threading.Lock()

    def path_of(self, namespace: str) -> Path:
        if not _SAFE.match(namespace):
            raise ValueError(f"Invalid namespace: {namespace!r}")
        return self.root / f"{namespace}{_SUFFIX}"

    def open(self, namespace: str) -> NamespaceStorage:
        with self._lock:
            opened = self._open.get(namespace)
            if opened is None:
                database = Database(self.path_of(namespace))
                opened = (database, open_storage(database))
                self._open[namespace] = opened
            return opened[1]

    def drop(self, namespace: str) -> None:
        path = self.path_of(namespace)
        with self._lock:
            opened = self._open.pop(namespace, None)
            if opened is not None:
                opened[0].close()
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)

    def stored_namespaces(self) -> list[str]:
        """Every namespace with a file under the root, open in this process or not."""
        found = (p.name[: -len(_SUFFIX)] for p in self.root.glob(f"*{_SUFFIX}")) if self.root.is_dir() else ()
        return sorted(name for name in found if _SAFE.match(name))

    def close(self) -> None:
        with self._lock:
            for database, _storage in self._open.values():
                database.close()
            self._open.clear()
