"""The SQLite store of platform tenancy (mnemo.ports.tenancy_store), in the main file beside the accounts.

One store per kind of caller, each usable alone, as on DynamoDB: SqliteDirectoryStore (directory.py: users,
organizations, projects, members, keys), SqliteEventStore (events.py: events and the outbox of ingest jobs' ends),
SqliteProjectRecordStore (records.py: exports, feedback, counters), SqliteDailyCounterStore (daily_counters.py: the
counters per day) and SqliteEntityStore (project_entities.py); SqliteTenancyStore is all five on one database.
The tables are in schema.py, the row layouts in rows.py."""

from __future__ import annotations

from mnemo.adapters.sqlite.tenancy_store.daily_counters import SqliteDailyCounterStore
from mnemo.adapters.sqlite.tenancy_store.directory import SqliteDirectoryStore
from mnemo.adapters.sqlite.tenancy_store.events import SqliteEventStore
from mnemo.adapters.sqlite.tenancy_store.project_entities import SqliteEntityStore
from mnemo.adapters.sqlite.tenancy_store.records import SqliteProjectRecordStore

__all__ = [
    "SqliteDailyCounterStore",
    "SqliteDirectoryStore",
    "SqliteEntityStore",
    "SqliteEventStore",
    "SqliteProjectRecordStore",
    "SqliteTenancyStore",
]


class SqliteTenancyStore(
    SqliteDirectoryStore, SqliteEventStore, SqliteProjectRecordStore, SqliteDailyCounterStore, SqliteEntityStore
):
    """Every tenancy record on one database: its tables opened once, one outbox wake-up for all of them."""
