"""The DynamoDB store of platform tenancy (mnemo.ports.tenancy_store): users, organizations, projects,
members, project keys, and each project's events, exports, feedback, counters and entities.

The items live in the accounts table (keys `pk`/`sk`, no secondary index, TTL on `ttl`), every partition key
starting with `T#`, so they never meet an account item. See "Platform tenancy" in README.md beside this package.
Reads are strongly consistent reads of the base table; writes that must not double or lose anything (a user's
email, a key's hash, a new organization or project with its owner, an event and its unfinished marker) are
conditional or transactions.

One store per kind of caller, each usable alone: DynamoDirectoryStore (directory.py), DynamoEventStore
(events.py), DynamoProjectRecordStore (records.py), DynamoDailyCounterStore (daily_counters.py: the counters per
day) and DynamoEntityStore (project_entities.py: the entities a project created explicitly); DynamoTenancyStore is
all five. Keys are built in keys.py, items in items.py.
"""

from __future__ import annotations

from mnemo.adapters.dynamodb.tenancy_store.daily_counters import DynamoDailyCounterStore
from mnemo.adapters.dynamodb.tenancy_store.directory import DynamoDirectoryStore
from mnemo.adapters.dynamodb.tenancy_store.events import DynamoEventStore
from mnemo.adapters.dynamodb.tenancy_store.keys import (
    UNFINISHED,
    event_count_key,
    events_pk,
    unfinished_marker,
    unfinished_pk,
)
from mnemo.adapters.dynamodb.tenancy_store.project_entities import DynamoEntityStore
from mnemo.adapters.dynamodb.tenancy_store.records import DynamoProjectRecordStore

__all__ = [
    "UNFINISHED",
    "DynamoDailyCounterStore",
    "DynamoDirectoryStore",
    "DynamoEntityStore",
    "DynamoEventStore",
    "DynamoProjectRecordStore",
    "DynamoTenancyStore",
    "event_count_key",
    "events_pk",
    "unfinished_marker",
    "unfinished_pk",
]


class DynamoTenancyStore(
    DynamoDirectoryStore, DynamoEventStore, DynamoProjectRecordStore, DynamoDailyCounterStore, DynamoEntityStore
):
    """Every tenancy record on one accounts table: one Operations and one write order for all of them."""
