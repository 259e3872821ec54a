"""The base of the stores that keep their records on one DynamoDB table: the table's calls (operations.py), a write
order for the records made in the same moment, and how the store waits between retries."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mnemo.adapters.dynamodb.codec import WriteOrder
from mnemo.adapters.dynamodb.operations import Operations


class TableStore:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """The boto3 client is passed in (the composition root builds it); the table must exist. `page_size` caps
        the items per Query/Scan page (None: DynamoDB's 1 MB pages; tests set it small); `sleep` waits between
        retries of unprocessed batch items and of transactions lost to concurrent writers."""
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)
        self._seq = WriteOrder()
        self._sleep = sleep
