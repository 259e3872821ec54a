"""What the tenancy stores share: the accounts table's operations, one write order, and the outbox of the ingest
jobs' ends (`T#OUTBOX`, see events.py and ../outbox.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb.codec import ordered_sk
from mnemo.adapters.dynamodb.outbox import OutboxPartition
from mnemo.adapters.dynamodb.table_store import TableStore
from mnemo.adapters.dynamodb.tenancy_store.keys import OUTBOX


class TenancyTable(TableStore):
    """The base of each tenancy store (directory.py, events.py, records.py, project_entities.py): reads are
    strongly consistent reads of the base table, and every Query follows LastEvaluatedKey (see Operations)."""

    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        outbox: bool = False,
        on_outbox: Callable[[], None] | None = None,
    ) -> None:
        """With `outbox`, the end of an ingest job (`update_event`) also writes its webhook event into the accounts
        table's outbox, in the same transaction; `on_outbox` is called after each such write (a wake-up for whoever
        publishes them; its errors are logged, never raised into the write). `page_size`, `sleep`: see TableStore."""
        super().__init__(client, table_name, page_size=page_size, sleep=sleep)
        self._outbox = OutboxPartition(self._ops, OUTBOX, order=self._seq) if outbox else None
        self._on_outbox = on_outbox

    def _ordered_sk(self, created_at: datetime, record_id: str) -> str:
        """Creation time, then write order (SQLite's seq), then the id: sorts as the records were made."""
        return ordered_sk(created_at, self._seq.next(), record_id)
