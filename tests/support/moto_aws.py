"""moto helpers: boto3 clients made once per test session (making one is the slow part) and used inside each
test's own `mock_aws()`, which starts empty; a wrapper for moto's backends, which are not thread-safe; and two
speed-ups of moto that change nothing it answers (installed by tests/conftest.py): `order_items_by_value` makes a
DynamoDB table's order cheap to compute, `one_table_copy_per_transaction` copies a table once per transaction, and
`look_up_actions_once` finds a service's actions once, not on every call."""

from __future__ import annotations

import contextlib
import copy
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import boto3

REGION = "us-east-1"


@functools.cache
def client(service: str) -> Any:
    """A client with fake credentials: only ever used while a mock_aws() is active."""
    return boto3.client(service, region_name=REGION, aws_access_key_id="moto", aws_secret_access_key="moto")


def aws_cli_environment(monkeypatch: Any, **variables: str) -> None:
    """The environment a `mnemo` command sees on the AWS backend under moto (fake credentials, the test region),
    with the stack's `variables` (MNEMO_ACCOUNTS_TABLE=..., ...)."""
    base = {
        "MNEMO_BACKEND": "aws",
        "MNEMO_AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "moto",
        "AWS_SECRET_ACCESS_KEY": "moto",
    }
    for name, value in {**base, **variables}.items():
        monkeypatch.setenv(name, value)


class OneCallAtATime:
    """moto's in-memory services are not thread-safe (AWS is): calls from many threads take turns."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._wrapped, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return method(*args, **kwargs)

        return call


def _by_value(table: Any) -> list[Any]:
    """moto's `Table.all_items` (every item, in key order), ordering by the keys' cast values."""
    items: list[Any] = []
    for hash_set in table.items.values():
        if table.range_key_attr:
            items.extend(hash_set.values())
        else:
            items.append(hash_set)
    return sorted(
        items,
        key=lambda x: (x.hash_key.cast_value, x.range_key.cast_value) if x.range_key else x.hash_key.cast_value,
    )


def look_up_actions_once() -> None:
    """Make moto find the methods of a response class once per class, not once per call it answers.

    For every call, moto lists the functions of the service's response class (`inspect.getmembers`) to check the
    action is one of them: in a profile of the suite that was as much CPU as DynamoDB's own item copying. The classes
    do not change while the tests run, so the list is kept per class; callers only read it."""
    from moto.core import responses

    listed = responses.method_names_from_class  # type: ignore[attr-defined]
    if not hasattr(listed, "cache_info"):
        responses.method_names_from_class = functools.cache(listed)  # type: ignore[attr-defined]


def order_items_by_value() -> Callable[[Any], list[Any]]:
    """Make moto's `Table.all_items` sort by the keys' values; returns moto's own, to compare with.

    Every query and scan of a moto table goes through `all_items`, which sorts the whole table comparing DynamoType
    objects, and each comparison casts both values again (a Decimal made for every number): on the table a test
    module's served platform fills, that sort was most of an AWS test's time. A DynamoType orders and compares by
    its cast value, and a key attribute has one type in the whole table, so sorting by the cast values gives the
    same order (tests/unit/test_moto_item_order.py checks it against moto's own); only the casts are done once."""
    from moto.dynamodb.models.table import Table

    original: Callable[[Any], list[Any]] = getattr(Table, "_all_items_of_moto", Table.all_items)
    Table._all_items_of_moto = original  # type: ignore[attr-defined]
    Table.all_items = _by_value  # type: ignore[method-assign,assignment]
    return original


class _OneTableCopyPerTransaction:
    """What moto's DynamoDB backend module sees as `copy`: the copy module, except that during a transaction (a
    thread's `copies` set) a table deep-copied again gets the copy already made."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        copies: dict[int, tuple[Any, Any]] | None = getattr(self._local, "copies", None)
        if copies is None or memo is not None or type(value).__name__ != "Table":
            return copy.deepcopy(value, memo)
        if id(value) not in copies:
            copies[id(value)] = (value, copy.deepcopy(value))  # the table kept too: its id stays its own
        return copies[id(value)][1]

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self._local.copies = {}
        try:
            yield
        finally:
            self._local.copies = None


_ONE_COPY = _OneTableCopyPerTransaction()


def one_table_copy_per_transaction() -> Callable[..., None]:
    """Make moto's `transact_write_items` copy each table once; returns moto's own, to compare with.

    Before a transaction moto deep-copies the table of each of its items, to put back if the transaction is
    cancelled: a table the transaction writes three items of is copied three times, every copy made before the
    first write and only the last kept. The tables here are one per kind (the platform's whole tenancy is one
    table), so most transactions copied the same whole table several times. Now the first copy is handed out again
    for the others: the same snapshot, taken once (tests/unit/test_moto_item_order.py checks a cancelled
    transaction still puts everything back)."""
    from moto.dynamodb import models

    if getattr(models, "copy", None) not in (copy, _ONE_COPY):  # what is replaced below: say so if moto moved it
        raise RuntimeError("moto.dynamodb.models no longer copies tables through its `copy` module: see moto_aws.py")
    backend = models.DynamoDBBackend
    original: Callable[..., None] = getattr(backend, "_transact_write_items_of_moto", backend.transact_write_items)

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        with _ONE_COPY.transaction():
            original(self, transact_items)

    backend._transact_write_items_of_moto = original  # type: ignore[attr-defined]
    backend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    models.copy = _ONE_COPY  # type: ignore[attr-defined,assignment]
    return original
