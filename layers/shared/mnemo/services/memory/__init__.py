"""The memory use cases of one namespace, as small pipelines composed by one facade (`MemoryService`, service.py):
add/ (extract, decide, file), search/ (retrieve, fuse, rerank, decay), erase.py, update.py, consolidate.py and
reads.py, over the parts they share (parts.py). Callers import from here."""

from mnemo.services.memory.add.instructions import with_topics
from mnemo.services.memory.add.provenance import cited_sources
from mnemo.services.memory.erase import ErasureListener
from mnemo.services.memory.metadata import strip_identity
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.memory.search.rerank import RERANK_UNAVAILABLE
from mnemo.services.memory.service import MemoryService

__all__ = [
    "RERANK_UNAVAILABLE",
    "AddPolicy",
    "ErasureListener",
    "MemoryService",
    "cited_sources",
    "strip_identity",
    "with_topics",
]
