"""The dashboard's refresh tokens on the accounts table (mnemo.ports.refresh_token_store; see ACCOUNTS.md beside
this file).

A token is stored by the SHA-256 of its jti, listed in its sign-in session (its family) and the session in its
user's: replaying a used token revokes its whole family. Every item carries a TTL at the token's expiry, so
DynamoDB deletes expired sessions by itself; `prune` exists for the contract and local tools.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.codec import Item, expiry, key, moment, moment_of, moment_or_none, optional
from mnemo.adapters.dynamodb.operations import Operations, condition_failed, projection
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE
from mnemo.domain.sessions import RefreshTokenRecord

TOKEN_SK = "RT"


def token_key(token_hash: str) -> Item:
    return key(f"RT#{token_hash}", TOKEN_SK)


def family_member_key(family_id: str, token_hash: str) -> Item:
    """The tokens of one sign-in session, for revoking them together."""
    return key(f"RTFAMILY#{family_id}", f"RT#{token_hash}")


def user_family_key(user_id: str, family_id: str) -> Item:
    """The sign-in sessions of one user, for ending them all."""
    return key(f"RTUSER#{user_id}", f"RTFAMILY#{family_id}")


def token_item(record: RefreshTokenRecord) -> Item:
    return {
        **token_key(record.token_hash),
        "token_hash": {"S": record.token_hash},
        "user_id": {"S": record.user_id},
        "family_id": {"S": record.family_id},
        "created_at": moment(record.created_at),
        "expires_at": moment(record.expires_at),
        TTL_ATTRIBUTE: expiry(record.expires_at),
        **optional(used_at=record.used_at, revoked_at=record.revoked_at),
    }


def token_of(item: Item) -> RefreshTokenRecord:
    return RefreshTokenRecord(
        token_hash=item["token_hash"]["S"],
        user_id=item["user_id"]["S"],
        family_id=item["family_id"]["S"],
        created_at=moment_of(item, "created_at"),
        expires_at=moment_of(item, "expires_at"),
        used_at=moment_or_none(item, "used_at"),
        revoked_at=moment_or_none(item, "revoked_at"),
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
                ExpressionAttributeValues={":at": moment(at)},
                ReturnValues="ALL_OLD",
            )
        except ClientError as exc:
            if condition_failed(exc):
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
                ExpressionAttributeValues={":at": moment(at)},
            )
        except ClientError as exc:
            if condition_failed(exc):
                return False
            raise
        return True

    def revoke_family(self, family_id: str, at: datetime) -> int:
        members = self._ops.partition(f"RTFAMILY#{family_id}")
        return sum(self._revoke(m["sk"]["S"].removeprefix("RT#"), at) for m in members)

    def revoke_for_user(self, user_id: str, at: datetime, keep_family: str | None = None) -> int:
        families = [m["family_id"]["S"] for m in self._ops.partition(f"RTUSER#{user_id}")]
        return sum(self.revoke_family(family, at) for family in families if family != keep_family)

    def prune(self, expired_before: datetime) -> int:
        """Delete tokens that expired before the cut-off: a scan, for local tools; in the cloud the TTL does it."""
        expired = list(
            self._ops.items(
                "scan",
                FilterExpression="sk = :rt AND expires_at < :cut",
                ExpressionAttributeValues={":rt": {"S": TOKEN_SK}, ":cut": moment(expired_before)},
                **projection(["pk", "sk", "token_hash", "family_id"]),
            )
        )
        doomed: list[Item] = []
        for item in expired:
            doomed += [
                token_key(item["token_hash"]["S"]),
                family_member_key(item["family_id"]["S"], item["token_hash"]["S"]),
            ]
        self._ops.delete_many(doomed)
        return len(expired)
