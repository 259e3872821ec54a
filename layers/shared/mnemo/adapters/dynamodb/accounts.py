"""The account stores on one DynamoDB table: dashboard users, their API keys and refresh tokens (see
ACCOUNTS.md beside this file for the key design).

Every read the services depend on is strongly consistent (no secondary index): a key revoked or a session
ended is refused on the very next request. Multi-item changes are transactions. Refresh tokens carry a TTL
attribute, so DynamoDB deletes them after they expire; `prune` exists for the contract and local tools.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.items import Item, key
from mnemo.adapters.dynamodb.items import Sequence as WriteOrder
from mnemo.adapters.dynamodb.operations import Operations, TransactionCancelledError, error_code, projection
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE, ensure_table, key_table
from mnemo.domain.accounts import Role, User
from mnemo.domain.api_keys import ApiKey
from mnemo.domain.sessions import RefreshTokenRecord
from mnemo.domain.timefmt import from_iso, iso
from mnemo.errors import ConflictError

EMAIL_TAKEN = "Email is already in use."
USERS = "USERS"  # the partition of every user (a deployment has a handful) and of their count
COUNT_SK = "COUNT"
USER_PREFIX = "USER#"
APIKEY_SK = "APIKEY"
TOKEN_SK = "RT"
_MAX_RETRIES = 8


def create_accounts_table(client: Any, table_name: str) -> bool:
    """For tests and local tools: the table as template.yaml declares it (keys, on-demand, TTL on `ttl`)."""
    return ensure_table(client, key_table(table_name), ttl_attribute=TTL_ATTRIBUTE)


def _opt(item: Item, name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value["S"])


def _moment(item: Item, name: str) -> datetime | None:
    text = _opt(item, name)
    return from_iso(text) if text else None


def _set_optional(item: Item, **values: datetime | None) -> Item:
    for name, value in values.items():
        if value is not None:
            item[name] = {"S": iso(value)}
    return item


def _condition_failed(exc: ClientError) -> bool:
    return error_code(exc) == "ConditionalCheckFailedException"


# ---- users ---------------------------------------------------------------------------------------------------


def user_key(user_id: str) -> Item:
    return key(USERS, USER_PREFIX + user_id)


def email_key(email: str) -> Item:
    return key(f"EMAIL#{email}", "EMAIL")


def user_item(user: User, created_sk: str) -> Item:
    item: Item = {
        **user_key(user.id),
        "id": {"S": user.id},
        "name": {"S": user.name},
        "email": {"S": user.email},
        "role": {"S": user.role.value},
        "password_hash": {"S": user.password_hash},
        "created_at": {"S": iso(user.created_at)},
        "created_sk": {"S": created_sk},
    }
    return _set_optional(item, last_login_at=user.last_login_at)


def user_of(item: Item) -> User:
    return User(
        id=item["id"]["S"],
        name=item["name"]["S"],
        email=item["email"]["S"],
        role=Role(item["role"]["S"]),
        password_hash=item["password_hash"]["S"],
        created_at=from_iso(item["created_at"]["S"]),
        last_login_at=_moment(item, "last_login_at"),
    )


class DynamoUserStore:
    def __init__(self, client: Any, table_name: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._ops = Operations(client, table_name, sleep=sleep)
        self._order = WriteOrder()

    def _claim(self, email: str, user_id: str) -> dict[str, Any]:
        item = {**email_key(email), "user_id": {"S": user_id}}
        return {"Put": {"TableName": self._ops.table, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"}}

    def _count_by(self, delta: int, *, only_when_empty: bool = False) -> dict[str, Any]:
        update: dict[str, Any] = {
            "TableName": self._ops.table,
            "Key": key(USERS, COUNT_SK),
            "UpdateExpression": "ADD #n :d",
            "ExpressionAttributeNames": {"#n": "n"},
            "ExpressionAttributeValues": {":d": {"N": str(delta)}},
        }
        if only_when_empty:
            update["ConditionExpression"] = "attribute_not_exists(#n) OR #n <= :zero"
            update["ExpressionAttributeValues"][":zero"] = {"N": "0"}
        return {"Update": update}

    def _insert(self, user: User, *, only_first: bool) -> bool:
        created_sk = f"{iso(user.created_at)}#{self._order.next():020d}"
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
        user = self.get(claim["user_id"]["S"])
        return user if user is not None and user.email == email else None

    def list(self) -> list[User]:
        items = self._ops.items(
            "query",
            KeyConditionExpression="pk = :p AND begins_with(sk, :u)",
            ExpressionAttributeValues={":p": {"S": USERS}, ":u": {"S": USER_PREFIX}},
            ConsistentRead=True,
        )
        return [user_of(i) for i in sorted(items, key=lambda i: i["created_sk"]["S"])]

    def count(self) -> int:
        item = self._ops.get(key(USERS, COUNT_SK))
        return max(0, int(item["n"]["N"])) if item is not None else 0

    def update(self, user: User) -> bool:
        for _attempt in range(_MAX_RETRIES):
            current = self._ops.get(user_key(user.id))
            if current is None:
                return False
            old_email = current["email"]["S"]
            put = self._ops.put(user_item(user, current["created_sk"]["S"]))
            put["Put"]["ConditionExpression"] = "attribute_exists(pk) AND email = :old"
            put["Put"]["ExpressionAttributeValues"] = {":old": {"S": old_email}}
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

    def _release(self, email: str, user_id: str) -> dict[str, Any]:
        return {
            "Delete": {
                "TableName": self._ops.table,
                "Key": email_key(email),
                "ConditionExpression": "attribute_not_exists(pk) OR user_id = :me",
                "ExpressionAttributeValues": {":me": {"S": user_id}},
            }
        }

    def remove(self, user_id: str) -> bool:
        for _attempt in range(_MAX_RETRIES):
            current = self._ops.get(user_key(user_id))
            if current is None:
                return False
            email = current["email"]["S"]
            delete = {
                "Delete": {
                    "TableName": self._ops.table,
                    "Key": user_key(user_id),
                    "ConditionExpression": "attribute_exists(pk) AND email = :email",
                    "ExpressionAttributeValues": {":email": {"S": email}},
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


# ---- API keys ------------------------------------------------------------------------------------------------


def api_key_key(key_id: str) -> Item:
    return key(f"APIKEY#{key_id}", APIKEY_SK)


def owner_key(user_id: str, key_id: str) -> Item:
    """Lists a user's keys (strongly consistent, unlike an index)."""
    return key(f"USERKEYS#{user_id}", f"APIKEY#{key_id}")


def prefix_key(key_prefix: str, key_id: str) -> Item:
    """Finds a live key by the prefix of a presented value; deleted when the key is revoked."""
    return key(f"KEYPREFIX#{key_prefix}", f"APIKEY#{key_id}")


def api_key_item(api_key: ApiKey, created_sk: str) -> Item:
    item: Item = {
        **api_key_key(api_key.id),
        "id": {"S": api_key.id},
        "user_id": {"S": api_key.user_id},
        "label": {"S": api_key.label},
        "key_prefix": {"S": api_key.key_prefix},
        "key_hash": {"S": api_key.key_hash},
        "created_at": {"S": iso(api_key.created_at)},
        "created_sk": {"S": created_sk},
    }
    return _set_optional(item, last_used_at=api_key.last_used_at, revoked_at=api_key.revoked_at)


def api_key_of(item: Item) -> ApiKey:
    return ApiKey(
        id=item["id"]["S"],
        user_id=item["user_id"]["S"],
        label=item["label"]["S"],
        key_prefix=item["key_prefix"]["S"],
        key_hash=item["key_hash"]["S"],
        created_at=from_iso(item["created_at"]["S"]),
        last_used_at=_moment(item, "last_used_at"),
        revoked_at=_moment(item, "revoked_at"),
    )


class DynamoApiKeyStore:
    def __init__(self, client: Any, table_name: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._ops = Operations(client, table_name, sleep=sleep)
        self._order = WriteOrder()

    def add(self, key: ApiKey) -> None:
        created_sk = f"{iso(key.created_at)}#{self._order.next():020d}"
        pointer = {"key_id": {"S": key.id}}
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
        pointers = self._ops.items(
            "query",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": partition}},
            ConsistentRead=True,
        )
        return self._ops.batch_get([api_key_key(p["key_id"]["S"]) for p in pointers])

    def list_for_user(self, user_id: str) -> list[ApiKey]:
        items = [i for i in self._pointed(f"USERKEYS#{user_id}") if "revoked_at" not in i]
        return [api_key_of(i) for i in sorted(items, key=lambda i: i["created_sk"]["S"], reverse=True)]

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
                "ExpressionAttributeValues": {":at": {"S": iso(at)}},
            }
        }
        unlist = {"Delete": {"TableName": self._ops.table, "Key": prefix_key(current["key_prefix"]["S"], key_id)}}
        try:
            self._ops.transact([update, unlist])
        except TransactionCancelledError:
            return False
        return True

    def touch(self, key_id: str, at: datetime) -> None:
        try:
            self._ops.client.update_item(
                TableName=self._ops.table,
                Key=api_key_key(key_id),
                UpdateExpression="SET last_used_at = :at",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeValues={":at": {"S": iso(at)}},
            )
        except ClientError as exc:
            if not _condition_failed(exc):
                raise

    def remove_for_user(self, user_id: str) -> int:
        items = self._pointed(f"USERKEYS#{user_id}")
        doomed: list[Item] = []
        for item in items:
            key_id = item["id"]["S"]
            doomed += [api_key_key(key_id), owner_key(user_id, key_id), prefix_key(item["key_prefix"]["S"], key_id)]
        self._ops.batch_write([{"DeleteRequest": {"Key": k}} for k in doomed])
        return len(items)


# ---- refresh tokens ------------------------------------------------------------------------------------------


def token_key(token_hash: str) -> Item:
    return key(f"RT#{token_hash}", TOKEN_SK)


def family_member_key(family_id: str, token_hash: str) -> Item:
    """The tokens of one sign-in session, for revoking them together."""
    return key(f"RTFAMILY#{family_id}", f"RT#{token_hash}")


def user_family_key(user_id: str, family_id: str) -> Item:
    """The sign-in sessions of one user, for ending them all."""
    return key(f"RTUSER#{user_id}", f"RTFAMILY#{family_id}")


def expiry(moment: datetime) -> dict[str, str]:
    return {"N": str(int(moment.timestamp()) + 1)}


def token_item(record: RefreshTokenRecord) -> Item:
    item: Item = {
        **token_key(record.token_hash),
        "token_hash": {"S": record.token_hash},
        "user_id": {"S": record.user_id},
        "family_id": {"S": record.family_id},
        "created_at": {"S": iso(record.created_at)},
        "expires_at": {"S": iso(record.expires_at)},
        TTL_ATTRIBUTE: expiry(record.expires_at),
    }
    return _set_optional(item, used_at=record.used_at, revoked_at=record.revoked_at)


def token_of(item: Item) -> RefreshTokenRecord:
    return RefreshTokenRecord(
        token_hash=item["token_hash"]["S"],
        user_id=item["user_id"]["S"],
        family_id=item["family_id"]["S"],
        created_at=from_iso(item["created_at"]["S"]),
        expires_at=from_iso(item["expires_at"]["S"]),
        used_at=_moment(item, "used_at"),
        revoked_at=_moment(item, "revoked_at"),
    )


class DynamoRefreshTokenStore:
    def __init__(self, client: Any, table_name: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._ops = Operations(client, table_name, sleep=sleep)

    def add(self, record: RefreshTokenRecord) -> None:
        ttl = {TTL_ATTRIBUTE: expiry(record.expires_at)}
        self._ops.transact(
            [
                self._ops.put_new(token_item(record)),
                self._ops.put({**family_member_key(record.family_id, record.token_hash), **ttl}),
                self._ops.put(
                    {**user_family_key(record.user_id, record.family_id), "family_id": {"S": record.family_id}, **ttl}
                ),
            ]
        )

    def get(self, token_hash: str) -> RefreshTokenRecord | None:
        item = self._ops.get(token_key(token_hash))
        return token_of(item) if item is not None else None

    def consume(self, token_hash: str, at: datetime) -> RefreshTokenRecord | None:
        try:
            reply = self._ops.client.update_item(
                TableName=self._ops.table,
                Key=token_key(token_hash),
                UpdateExpression="SET used_at = :at",
                ConditionExpression=(
                    "attribute_exists(pk) AND attribute_not_exists(used_at) AND attribute_not_exists(revoked_at) "
                    "AND expires_at > :at"
                ),
                ExpressionAttributeValues={":at": {"S": iso(at)}},
                ReturnValues="ALL_OLD",
            )
        except ClientError as exc:
            if _condition_failed(exc):
                return None
            raise
        return token_of(reply["Attributes"])

    def _revoke(self, token_hash: str, at: datetime) -> bool:
        try:
            self._ops.client.update_item(
                TableName=self._ops.table,
                Key=token_key(token_hash),
                UpdateExpression="SET revoked_at = :at",
                ConditionExpression=(
                    "attribute_exists(pk) AND attribute_not_exists(used_at) AND attribute_not_exists(revoked_at)"
                ),
                ExpressionAttributeValues={":at": {"S": iso(at)}},
            )
        except ClientError as exc:
            if _condition_failed(exc):
                return False
            raise
        return True

    def _members(self, partition: str) -> list[Item]:
        return list(
            self._ops.items(
                "query",
                KeyConditionExpression="pk = :p",
                ExpressionAttributeValues={":p": {"S": partition}},
                ConsistentRead=True,
            )
        )

    def revoke_family(self, family_id: str, at: datetime) -> int:
        members = self._members(f"RTFAMILY#{family_id}")
        return sum(self._revoke(m["sk"]["S"].removeprefix("RT#"), at) for m in members)

    def revoke_for_user(self, user_id: str, at: datetime, keep_family: str | None = None) -> int:
        families = [m["family_id"]["S"] for m in self._members(f"RTUSER#{user_id}")]
        return sum(self.revoke_family(family, at) for family in families if family != keep_family)

    def prune(self, expired_before: datetime) -> int:
        """Delete tokens that expired before the cut-off: a scan, for local tools; in the cloud the TTL does it."""
        expired = list(
            self._ops.items(
                "scan",
                FilterExpression="sk = :rt AND expires_at < :cut",
                ExpressionAttributeValues={":rt": {"S": TOKEN_SK}, ":cut": {"S": iso(expired_before)}},
                **projection(["pk", "sk", "token_hash", "family_id"]),
            )
        )
        doomed: list[Item] = []
        for item in expired:
            doomed += [
                token_key(item["token_hash"]["S"]),
                family_member_key(item["family_id"]["S"], item["token_hash"]["S"]),
            ]
        self._ops.batch_write([{"DeleteRequest": {"Key": k}} for k in doomed])
        return len(expired)
