"""The DynamoDB record store for memories, history, entity counts and settings: one table, see README.md.

The boto3 client is passed in (the composition root builds it); the table must exist (see schema.py). The store is
its reads (memory_reads.py), its writes (memory_writes.py) and its deletes (memory_removal.py), on what they share
(memory_table.py: the namespace, the entity counts of entity_counts.py, the outbox). A platform namespace's store
may also write the webhook events of its changes (`change_events`) into the table's outbox (outbox.py), in the very
transactions that make the changes.
"""

from __future__ import annotations

from mnemo.adapters.dynamodb.memory_reads import MemoryReads
from mnemo.adapters.dynamodb.memory_removal import MemoryRemoval
from mnemo.adapters.dynamodb.memory_writes import MemoryWrites


class DynamoMemoryStore(MemoryReads, MemoryWrites, MemoryRemoval):
    """The MemoryStore port (and, with an outbox, a namespace's ChangeOutbox) on one DynamoDB table."""
