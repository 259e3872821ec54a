"""What every SQLite tenancy store shares: the main file's database, its tables opened once, and the wake-up of
whoever publishes the outbox."""

from __future__ import annotations

import logging
from collections.abc import Callable

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.tenancy_store.schema import open_tables

_log = logging.getLogger(__name__)


class TenancyTables:
    """`on_outbox`: called after a transaction that wrote an ingest job's webhook event (a wake-up for whoever
    publishes them; its errors are logged, never raised into the write)."""

    def __init__(self, db: Database, *, on_outbox: Callable[[], None] | None = None) -> None:
        self._db = db
        self._on_outbox = on_outbox
        open_tables(db)

    def _notify(self) -> None:
        if self._on_outbox is None:
            return
        try:
            self._on_outbox()
        except Exception:  # a wake-up that fails must not fail a write already committed
            _log.exception("the outbox wake-up of the tenancy store failed")
