"""DynamoDB calls done properly: every query and scan paginated, batch leftovers retried, transactions retried
on conflicts and idempotent across the SDK's own retries."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.attributes import Item, placeholders, text
from mnemo.adapters.dynamodb.codec import key_of
from mnemo.adapters.dynamodb.throttling import raise_throttling_as_busy
from mnemo.errors import PayloadTooLargeError

MAX_BATCH_GET = 100
MAX_BATCH_WRITE = 25
MAX_TRANSACTION = 100


class TransactionCancelledError(Exception):
    """A transaction failed a condition: `reasons[i]` is the code for the i-th item ("None" when it was fine)."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(f"transaction cancelled: {reasons}")
        self.reasons = reasons

    def failed(self, position: int) -> bool:
        return position < len(self.reasons) and self.reasons[position] == "ConditionalCheckFailed"


class UnprocessedError(Exception):
    """DynamoDB kept returning unprocessed items after every retry."""


def error_code(exc: ClientError) -> str:
    return str(exc.response.get("Error", {}).get("Code", ""))


def condition_failed(exc: ClientError) -> bool:
    """Whether a single-item write was refused by its condition."""
    return error_code(exc) == "ConditionalCheckFailedException"


def _lost_to_others(exc: ClientError) -> bool:
    """Whether a TransactWriteItems failed for other transactions (a conflict, throttling): worth another attempt.
    A condition that failed raises TransactionCancelledError."""
    code = error_code(exc)
    if code != "TransactionCanceledException":
        return code in ("TransactionConflictException", "TransactionInProgressException")
    reasons = [str(r.get("Code", "None")) for r in exc.response.get("CancellationReasons", [])]
    if "ConditionalCheckFailed" in reasons:
        raise TransactionCancelledError(reasons) from exc
    return any(r in ("TransactionConflict", "ThrottlingError") for r in reasons)


def projection(names: Sequence[str]) -> dict[str, Any]:
    """ProjectionExpression arguments with every name escaped (many attribute names are reserved words)."""
    aliases = {f"#p{i}": name for i, name in enumerate(names)}
    return {"ProjectionExpression": ", ".join(aliases), "ExpressionAttributeNames": aliases}


MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024


def key_fits(item_key: Item) -> bool:
    """Whether DynamoDB accepts this pk/sk: a caller's id can make a key longer than any stored item's."""
    pk, sk = text(item_key, "pk"), text(item_key, "sk") if "sk" in item_key else ""
    return len(pk.encode()) <= MAX_PARTITION_KEY_BYTES and len(sk.encode()) <= MAX_SORT_KEY_BYTES


MAX_ITEM_BYTES = 400 * 1024


def value_size(value: dict[str, Any]) -> int:
    """An attribute value's size as DynamoDB counts it (numbers rounded up; a little over is safe)."""
    kind, inner = next(iter(value.items()))
    sizer = _SIZERS.get(kind)
    if sizer is None:
        raise ValueError(f"Unknown DynamoDB attribute type {kind!r}.")
    return sizer(inner)


_SIZERS: dict[str, Callable[[Any], int]] = {
    "S": lambda inner: len(inner.encode("utf-8")),
    "B": len,
    "N": lambda inner: len(inner) // 2 + 2,
    "BOOL": lambda _inner: 1,
    "NULL": lambda _inner: 1,
    "SS": lambda inner: sum(value_size({"S": v}) for v in inner),
    "NS": lambda inner: sum(value_size({"N": v}) for v in inner),
    "BS": lambda inner: sum(value_size({"B": v}) for v in inner),
    "L": lambda inner: 3 + sum(1 + value_size(v) for v in inner),
    "M": lambda inner: 3 + sum(len(k.encode("utf-8")) + 1 + value_size(v) for k, v in inner.items()),
}


def item_size(item: Item) -> int:
    """An item's size as DynamoDB counts it against its 400 KB limit: names and values."""
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())


def fitting(item: Item) -> Item:
    """The item itself, or a 413 before anything is written when DynamoDB would refuse it as too large."""
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise PayloadTooLargeError(
            f"What was sent makes a record of {size:,} bytes; at most {MAX_ITEM_BYTES:,} can be stored. "
            "Send less text or metadata."
        )
    return item


_LEFTOVERS = {  # what a batch call leaves unprocessed, and how its error says so
    "batch_get_item": ("UnprocessedKeys", "BatchGetItem left keys"),
    "batch_write_item": ("UnprocessedItems", "BatchWriteItem left items"),
}


class Operations:
    def __init__(
        self,
        client: Any,
        table: str,
        *,
        page_size: int | None = None,
        max_attempts: int = 8,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        raise_throttling_as_busy(client)
        self.client = client
        self.table = table
        self.page_size = page_size
        self.max_attempts = max_attempts
        self._sleep = sleep

    def _backoff(self, attempt: int) -> None:
        self._sleep(min(0.025 * 2**attempt, 1.0) * (0.5 + random.random() / 2))

    # ---- reads --------------------------------------------------------------------------------------

    def items(self, operation: str, *, first_page: int | None = None, **kwargs: Any) -> Iterator[Item]:
        """Every item of a Query or Scan, following LastEvaluatedKey page after page. `first_page` caps the
        first page (a caller that wants only a few items), later pages are full."""
        call = getattr(self.client, operation)
        request = {"TableName": self.table, **kwargs}
        limits = [n for n in (self.page_size, first_page) if n is not None]
        if limits:
            request["Limit"] = max(1, min(limits))
        while True:
            page = call(**request)
            yield from page.get("Items", [])
            last = page.get("LastEvaluatedKey")
            if not last:
                return
            request["ExclusiveStartKey"] = last
            if self.page_size is None:
                request.pop("Limit", None)
            else:
                request["Limit"] = self.page_size

    def partition(self, pk: str, prefix: str | None = None) -> list[Item]:
        """Every item of a partition (strongly consistent, paginated), optionally those whose sk starts so."""
        condition, values = "pk = :pk", placeholders(pk=pk)
        if prefix is not None:
            condition += " AND begins_with(sk, :pre)"
            values |= placeholders(pre=prefix)
        return list(
            self.items("query", KeyConditionExpression=condition, ExpressionAttributeValues=values, ConsistentRead=True)
        )

    def get(self, item_key: Item, names: Sequence[str] | None = None) -> Item | None:
        """The item, or None — also for a key too large for any item to have (DynamoDB would refuse the read)."""
        if not key_fits(item_key):
            return None
        extra = projection(names) if names else {}
        found: Item | None = self.client.get_item(TableName=self.table, Key=item_key, ConsistentRead=True, **extra).get(
            "Item"
        )
        return found

    def batch_get(self, keys: Sequence[Item], names: Sequence[str] | None = None) -> list[Item]:
        """The items that exist among `keys` (strongly consistent), in no particular order."""
        unique = list({(text(k, "pk"), text(k, "sk")): k for k in keys}.values())
        extra = projection(names) if names else {}
        found: list[Item] = []
        for start in range(0, len(unique), MAX_BATCH_GET):
            batch = {"Keys": unique[start : start + MAX_BATCH_GET], "ConsistentRead": True, **extra}
            for reply in self._until_processed("batch_get_item", batch):
                found.extend(reply.get("Responses", {}).get(self.table, []))
        return found

    # ---- writes -------------------------------------------------------------------------------------

    def batch_write(self, requests: Sequence[dict[str, Any]]) -> None:
        """PutRequest / DeleteRequest entries, 25 per call, unprocessed ones retried with backoff."""
        for request in requests:
            if "PutRequest" in request:
                fitting(request["PutRequest"]["Item"])
        for start in range(0, len(requests), MAX_BATCH_WRITE):
            self._until_processed("batch_write_item", list(requests[start : start + MAX_BATCH_WRITE]))

    def _until_processed(self, operation: str, batch: Any) -> list[dict[str, Any]]:
        """The replies of a BatchGetItem or BatchWriteItem of this table's `batch`, called again with what DynamoDB
        left unprocessed, after a backoff, until nothing is left (UnprocessedError after max_attempts)."""
        leftover, what = _LEFTOVERS[operation]
        replies: list[dict[str, Any]] = []
        pending: dict[str, Any] = {self.table: batch}
        for attempt in range(self.max_attempts):
            replies.append(getattr(self.client, operation)(RequestItems=pending))
            pending = replies[-1].get(leftover) or {}
            if not pending:
                return replies
            self._backoff(attempt)
        raise UnprocessedError(f"{what} unprocessed after {self.max_attempts} attempts.")

    def partition_keys(self, pk: str, *, consistent: bool) -> Iterator[Item]:
        """The keys of every item of a partition, page after page (strongly consistent when asked)."""
        request: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": placeholders(pk=pk),
        }
        if consistent:
            request["ConsistentRead"] = True
        return self.items("query", **request, **projection(["pk", "sk"]))

    def delete_as_found(self, items: Iterable[Item], *, batch: int = 500) -> None:
        """Delete these items (or keys) `batch` at a time as they come: however many a partition holds, no more
        than a batch of them is held at once."""
        doomed: list[Item] = []
        for item in items:
            doomed.append(item)
            if len(doomed) >= batch:
                self.delete_many(doomed)
                doomed = []
        self.delete_many(doomed)

    def delete_many(self, items: Iterable[Item]) -> None:
        """Delete these items (or keys), each once, with batch_write."""
        unique = {(text(i, "pk"), text(i, "sk")): key_of(i) for i in items}
        self.batch_write([{"DeleteRequest": {"Key": k}} for k in unique.values()])

    def delete(self, item_key: Item) -> bool:
        """Delete one item; whether it was there."""
        reply = self.client.delete_item(TableName=self.table, Key=item_key, ReturnValues="ALL_OLD")
        return bool(reply.get("Attributes"))

    def conditionally(self, operation: str, **request: Any) -> dict[str, Any] | None:
        """One single-item write of this table on its ConditionExpression (`put_item`, `update_item`,
        `delete_item`): DynamoDB's reply, or None when the condition failed and nothing was written."""
        try:
            reply: dict[str, Any] = getattr(self.client, operation)(TableName=self.table, **request)
        except ClientError as exc:
            if condition_failed(exc):
                return None
            raise
        return reply

    def set_if_exists(self, item_key: Item, values: Item) -> bool:
        """SET these attributes of an item that exists (one that does not stays absent); whether it existed."""
        names = {f"#s{i}": name for i, name in enumerate(values)}
        assigned = {f":s{i}": value for i, value in enumerate(values.values())}
        reply = self.conditionally(
            "update_item",
            Key=item_key,
            UpdateExpression="SET " + ", ".join(f"{n} = {v}" for n, v in zip(names, assigned, strict=True)),
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=assigned,
        )
        return reply is not None

    def transact(self, actions: Sequence[dict[str, Any]]) -> None:
        """One all-or-nothing TransactWriteItems. A failed condition raises TransactionCancelledError; conflicts with
        other transactions are retried. The client request token makes the SDK's own retries idempotent."""
        if len(actions) > MAX_TRANSACTION:
            raise ValueError(f"A transaction holds at most {MAX_TRANSACTION} actions, not {len(actions)}.")
        token = str(uuid.uuid4())
        for attempt in range(self.max_attempts):
            try:
                self.client.transact_write_items(TransactItems=list(actions), ClientRequestToken=token)
                return
            except ClientError as exc:
                if not _lost_to_others(exc) or attempt == self.max_attempts - 1:
                    raise
                token = str(uuid.uuid4()) if error_code(exc) == "TransactionCanceledException" else token
                self._backoff(attempt)

    def put(self, item: Item) -> dict[str, Any]:
        return {"Put": {"TableName": self.table, "Item": fitting(item)}}

    def put_new(self, item: Item) -> dict[str, Any]:
        return {
            "Put": {"TableName": self.table, "Item": fitting(item), "ConditionExpression": "attribute_not_exists(pk)"}
        }

    def release(self, claim_key: Item, holder: str, owner: str) -> dict[str, Any]:
        """A transaction's Delete of a claim item, on the condition that it is gone or still `owner`'s (its
        attribute `holder`): a claim another has taken meanwhile cancels the transaction."""
        return {
            "Delete": {
                "TableName": self.table,
                "Key": claim_key,
                "ConditionExpression": f"attribute_not_exists(pk) OR {holder} = :me",
                "ExpressionAttributeValues": placeholders(me=owner),
            }
        }

    def add_to(self, item_key: Item, attribute: str, delta: int) -> dict[str, Any]:
        """A transaction's atomic ADD of `delta` to a number attribute (`#n` in the expression)."""
        return {
            "Update": {
                "TableName": self.table,
                "Key": item_key,
                "UpdateExpression": "ADD #n :d",
                "ExpressionAttributeNames": {"#n": attribute},
                "ExpressionAttributeValues": placeholders(d=delta),
            }
        }
