"""Memory namespaces on the embedded backend: one SQLite file per namespace under `<data dir>/namespaces/`.

Each file holds the namespace's memories, history and keyword index; its vector index is loaded when the
namespace is first used. Separate files make a cross-namespace read impossible: a namespace's MemoryService
has no handle on any other file.
"""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.services.memory_service import MemoryService, active_batches
from mnemo.services.providers import ActiveProviders
from mnemo.services.ranking import RankingWeights

log = logging.getLogger("mnemo.namespaces")
_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class SqliteMemoryNamespaces:
    def __init__(self, root: Path, providers: ActiveProviders, weights: RankingWeights | None = None) -> None:
        self.root = root
        self._providers = providers
        self._weights = weights
        self._open: dict[str, tuple[Database, MemoryService]] = {}
        self._lock = threading.Lock()

    def path_of(self, namespace: str) -> Path:
        if not _SAFE.match(namespace):
            raise ValueError(f"Invalid namespace: {namespace!r}")
        return self.root / f"{namespace}.sqlite3"

    def memories(self, namespace: str) -> MemoryService:
        with self._lock:
            opened = self._open.get(namespace)
            if opened is None:
                opened = self._open_namespace(namespace)
                self._open[namespace] = opened
            return opened[1]

    def _open_namespace(self, namespace: str) -> tuple[Database, MemoryService]:
        database = Database(self.path_of(namespace))
        store = SqliteMemoryStore(database)
        embedder = self._providers.get().embedder
        index = LocalMemoryIndex(database, embedder.dimension)
        service = MemoryService(store, index, self._providers, self._weights)
        stored = next((int(vectors.shape[1]) for _records, vectors in store.scan(1)), None)
        if stored not in (None, embedder.dimension):
            log.warning("namespace %s: stored embeddings do not match the embedder: embedding again", namespace)
            service.reembed_all()
        else:
            index.load(active_batches(store.scan()), embedder.dimension)
        return database, service

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
        suffix = ".sqlite3"
        found = (p.name[: -len(suffix)] for p in self.root.glob(f"*{suffix}")) if self.root.is_dir() else ()
        return sorted(name for name in found if _SAFE.match(name))

    def reembed_all(self) -> int:
        """Every stored namespace, not only the open ones: a namespace opened later would otherwise keep the
        vectors of the old embedder when the new one has the same dimension."""
        return sum(self.memories(namespace).reembed_all() for namespace in self.stored_namespaces())

    def close(self) -> None:
        with self._lock:
            for database, _service in self._open.values():
                database.close()
            self._open.clear()
