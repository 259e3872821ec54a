"""The embedded search index: exact and approximate vector search in memory, keyword search in SQLite FTS5.

`LocalMemoryIndex` is the adapter of the MemoryIndex port for the embedded backend; `IndexTuning` says when it
searches approximately. The package's other modules are its parts (see `local_index` for how they fit).
"""

from mnemo.adapters.sqlite.memory_index.local_index import (
    IndexedRecords,
    IndexTuning,
    LocalMemoryIndex,
    secure_delete_supported,
)

__all__ = ["IndexTuning", "IndexedRecords", "LocalMemoryIndex", "secure_delete_supported"]
