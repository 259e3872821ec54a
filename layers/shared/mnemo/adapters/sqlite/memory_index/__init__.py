"""The embedded search index: int8 vectors in memory, searched exactly or approximately, and keyword search in the
records' SQLite file (FTS5, BM25).

`LocalMemoryIndex` (.local_index) is the MemoryIndex of the embedded backend, a facade over the package's parts:
the per-user partitions (.partitions) and what each row keeps (.row_documents, .int8_vectors), the exact scan
(.exact_scan, .candidates), the approximate index (.approximate, .faiss_index), the float32 rescoring
(.exact_vectors), the facets (.facets), the keyword table (.keyword_table, .keyword_query), the search that
combines them (.search), the loading (.loading), other processes' changes (.following) and the snapshot
(.snapshots, .snapshot_files). `IndexTuning` says when it searches approximately.
"""

from mnemo.adapters.sqlite.memory_index.keyword_table import secure_delete_supported
from mnemo.adapters.sqlite.memory_index.local_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_index.records import IndexedRecords
from mnemo.adapters.sqlite.memory_index.tuning import IndexTuning

__all__ = ["IndexTuning", "IndexedRecords", "LocalMemoryIndex", "secure_delete_supported"]
