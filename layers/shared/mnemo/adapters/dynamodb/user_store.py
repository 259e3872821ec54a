"""The dashboard users on the accounts table (mnemo.ports.user_store; see ACCOUNTS.md beside this file).

Every user is an item of the one `USERS` partition (a deployment has a handful), beside their count; each email
is claimed by an item of its own, so two users never share one. Multi-item changes are transactions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mnemo.adapters.dynamodb.attributes import Item, attributes, integer, placeholders, text
from mnemo.adapters.dynamodb.codec import WriteOrder, key, ordered_sk
from mnemo.adapters.dynamodb.operations import Operations, TransactionCancelledError
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.domain.accounts import User
from mnemo.errors import ConflictError

EMAIL_TAKEN = "Email is already in use."
USERS = "USERS"  # the partition of every user (a deployment has a handful) and of their count
COUNT_SK = "COUNT"
USER_PREFIX = "USER#"
_MAX_RETRIES = 8


def user_key(user_id: str) -> Item:
    return key(USERS, USER_PREFIX + user_id)


def email_key(email: str) -> Item:
    return key(f"EMAIL#{email}", "EMAIL")


def user_item(user: User, created_sk: str) -> Item:
    return {**user_key(user.id), **as_attributes(user), **attributes(created_sk=created_sk)}


def user_of(item: Item) -> User:
    return from_item(User, item)


class DynamoUserStore:
    def __init__(self, client: Any, table_name: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._ops = Operations(client, table_name, sleep=sleep)
        self._order = WriteOrder()

    def _claim(self, email: str, user_id: str) -> dict[str, Any]:
        return self._ops.put_new({**email_key(email), **attributes(user_id=user_id)})

    def _release(self, email: str, user_id: str) -> dict[str, Any]:
        return self._ops.release(email_key(email), "user_id", user_id)

    def _count_by(self, delta: int, *, only_when_empty: bool = False) -> dict[str, Any]:
        action = self._ops.add_to(key(USERS, COUNT_SK), "n", delta)
        if only_when_empty:
            action["Update"]["ConditionExpression"] = "attribute_not_exists(#n) OR #n <= :zero"
            action["Update"]["ExpressionAttributeValues"] |= placeholders(zero=0)
        return action

    def _insert(self, user: User, *, only_first: bool) -> bool:
        created_sk = ordered_sk(user.created_at, self._order.next())
        actions = [
            self._count_by(1, only_when_empty=only_first),
            self._ops.put_new(user_item(user, created_sk)),
            self._claim(user.email, user.id),
        ]
        try:
            self._ops.transact(actions)
        except TransactionCancelledError as cancelled:
            if cancelled.failed(0):
                return False  # only_first, and a user exists
            if cancelled.failed(1):
                raise ConflictError(f"A user with id {user.id} already exists.") from cancelled
            raise ConflictError(EMAIL_TAKEN) from cancelled
        return True

    def add(self, user: User) -> None:
        self._insert(user, only_first=False)

    def add_first(self, user: User) -> bool:
        return self._insert(user, only_first=True)

    def get(self, user_id: str) -> User | None:
        item = self._ops.get(user_key(user_id))
        return user_of(item) if item is not None else None

    def get_by_email(self, email: str) -> User | None:
        claim = self._ops.get(email_key(email))
        if claim is None:
            return None
        user = self.get(text(claim, "user_id"))
        return user if user is not None and user.email == email else None

    def list(self) -> list[User]:
        items = self._ops.partition(USERS, USER_PREFIX)
        return [user_of(i) for i in sorted(items, key=lambda i: text(i, "created_sk"))]

    def count(self) -> int:
        item = self._ops.get(key(USERS, COUNT_SK))
        return max(0, integer(item, "n")) if item is not None else 0

    def update(self, user: User) -> bool:
        for _attempt in range(_MAX_RETRIES):
            current = self._ops.get(user_key(user.id))
            if current is None:
                return False
            old_email = text(current, "email")
            put = self._ops.put(user_item(user, text(current, "created_sk")))
            put["Put"]["ConditionExpression"] = "attribute_exists(pk) AND email = :old"
            put["Put"]["ExpressionAttributeValues"] = placeholders(old=old_email)
            actions = [put]
            if user.email != old_email:
                actions += [self._release(old_email, user.id), self._claim(user.email, user.id)]
            try:
                self._ops.transact(actions)
            except TransactionCancelledError as cancelled:
                if cancelled.failed(0):
                    continue  # changed or removed meanwhile: read it again
                if cancelled.failed(2):
                    raise ConflictError(EMAIL_TAKEN) from cancelled
                raise
            return True
        raise RuntimeError(f"User {user.id} kept changing while being updated; giving up.")

    def remove(self, user_id: str) -> bool:
        for _attempt in range(_MAX_RETRIES):
            current = self._ops.get(user_key(user_id))
            if current is None:
                return False
            email = text(current, "email")
            delete = {
                "Delete": {
                    "TableName": self._ops.table,
                    "Key": user_key(user_id),
                    "ConditionExpression": "attribute_exists(pk) AND email = :email",
                    "ExpressionAttributeValues": placeholders(email=email),
                }
            }
            try:
                self._ops.transact([delete, self._release(email, user_id), self._count_by(-1)])
            except TransactionCancelledError as cancelled:
                if cancelled.failed(0):
                    continue
                raise
            return True
        raise RuntimeError(f"User {user_id} kept changing while being removed; giving up.")
