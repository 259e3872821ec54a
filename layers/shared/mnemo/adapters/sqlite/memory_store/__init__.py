"""The SQLite record store of memories (mnemo.ports.memory_store): the store itself (store.py), its tables
(schema.py), its row layouts (rows.py), what a delete erases in the file (erasing.py), the outbox of a platform
project's changes (outbox.py) and the cache of recently read records (record_cache.py)."""

from __future__ import annotations

from mnemo.adapters.sqlite.memory_store.store import SqliteMemoryStore

__all__ = ["SqliteMemoryStore"]
