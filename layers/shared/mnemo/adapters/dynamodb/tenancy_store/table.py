"""What the tenancy stores share: the accounts table's operations and one write order."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb.codec import WriteOrder, ordered_sk
from mnemo.adapters.dynamodb.operations import Operations


class TenancyTable:
    """The base of each tenancy store (directory.py, events.py, records.py, entities.py): reads are strongly
    consistent reads of the base table, and every Query follows LastEvaluatedKey (see Operations)."""

    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)
        self._seq = WriteOrder()

    def _ordered_sk(self, created_at: datetime, record_id: str) -> str:
        """Creation time, then write order (SQLite's seq), then the id: sorts as the records were made."""
        return ordered_sk(created_at, self._seq.next(), record_id)
