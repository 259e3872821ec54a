"""The dashboard users' API keys on the accounts table (mnemo.ports.api_key_store; see ACCOUNTS.md beside this
file).

A key is one item; pointers list a user's keys and find a live key by the prefix of a presented value, strongly
consistent (no index): a revoked key is refused on the very next request.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb.attributes import Item, attributes, placeholders, text
from mnemo.adapters.dynamodb.codec import WriteOrder, key, ordered_sk
from mnemo.adapters.dynamodb.operations import Operations, TransactionCancelledError
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.domain.api_keys import ApiKey
from mnemo.errors import ConflictError

APIKEY_SK = "APIKEY"


def api_key_key(key_id: str) -> Item:
    return key(f"APIKEY#{key_id}", APIKEY_SK)


def owner_key(user_id: str, key_id: str) -> Item:
    """Lists a user's keys (strongly consistent, unlike an index)."""
    return key(f"USERKEYS#{user_id}", f"APIKEY#{key_id}")


def prefix_key(key_prefix: str, key_id: str) -> Item:
    """Finds a live key by the prefix of a presented value; deleted when the key is revoked."""
    return key(f"KEYPREFIX#{key_prefix}", f"APIKEY#{key_id}")


def api_key_item(api_key: ApiKey, created_sk: str) -> Item:
    return {**api_key_key(api_key.id), **as_attributes(api_key), **attributes(created_sk=created_sk)}


def api_key_of(item: Item) -> ApiKey:
    return from_item(ApiKey, item)


class DynamoApiKeyStore:
    def __init__(self, client: Any, table_name: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._ops = Operations(client, table_name, sleep=sleep)
        self._order = WriteOrder()

    def add(self, key: ApiKey) -> None:
        created_sk = ordered_sk(key.created_at, self._order.next())
        pointer = attributes(key_id=key.id)
        actions = [
            self._ops.put_new(api_key_item(key, created_sk)),
            self._ops.put({**owner_key(key.user_id, key.id), **pointer}),
        ]
        if key.revoked_at is None:
            actions.append(self._ops.put({**prefix_key(key.key_prefix, key.id), **pointer}))
        try:
            self._ops.transact(actions)
        except TransactionCancelledError as cancelled:
            raise ConflictError(f"An API key with id {key.id} already exists.") from cancelled

    def get(self, key_id: str) -> ApiKey | None:
        item = self._ops.get(api_key_key(key_id))
        return api_key_of(item) if item is not None else None

    def _pointed(self, partition: str) -> list[Item]:
        """The keys a partition of pointers (a user's, a prefix's) names."""
        return self._ops.batch_get([api_key_key(text(p, "key_id")) for p in self._ops.partition(partition)])

    def list_for_user(self, user_id: str) -> list[ApiKey]:
        items = [i for i in self._pointed(f"USERKEYS#{user_id}") if "revoked_at" not in i]
        return [api_key_of(i) for i in sorted(items, key=lambda i: text(i, "created_sk"), reverse=True)]

    def auth_epoch(self) -> None:
        """None: on DynamoDB each request reads its key and user (no verified-key cache)."""
        return None

    def find_active_by_prefix(self, key_prefix: str) -> Sequence[ApiKey]:
        return [api_key_of(i) for i in self._pointed(f"KEYPREFIX#{key_prefix}") if "revoked_at" not in i]

    def revoke(self, key_id: str, at: datetime) -> bool:
        current = self._ops.get(api_key_key(key_id), ["key_prefix"])
        if current is None:
            return False
        update = {
            "Update": {
                "TableName": self._ops.table,
                "Key": api_key_key(key_id),
                "UpdateExpression": "SET revoked_at = :at",
                "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(revoked_at)",
                "ExpressionAttributeValues": placeholders(at=at),
            }
        }
        unlist = {"Delete": {"TableName": self._ops.table, "Key": prefix_key(text(current, "key_prefix"), key_id)}}
        try:
            self._ops.transact([update, unlist])
        except TransactionCancelledError:
            return False
        return True

    def touch(self, key_id: str, at: datetime) -> None:
        self._ops.set_if_exists(api_key_key(key_id), attributes(last_used_at=at))

    def remove_for_user(self, user_id: str) -> int:
        items = self._pointed(f"USERKEYS#{user_id}")
        doomed: list[Item] = []
        for item in items:
            key_id = text(item, "id")
            doomed += [api_key_key(key_id), owner_key(user_id, key_id), prefix_key(text(item, "key_prefix"), key_id)]
        self._ops.delete_many(doomed)
        return len(items)
