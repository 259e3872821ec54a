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

from mnemo.adapters.dynamodb.attributes import Item, attributes, placeholders, text
from mnemo.adapters.dynamodb.codec import expiry, key
from mnemo.adapters.dynamodb.operations import Operations, projection
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE
from mnemo.domain.sessions import RefreshTokenRecord

TOKEN_SK = "RT"
# A token that is stored, and neither used nor revoked.
_LIVE = "attribute_exists(pk) AND attribute_not_exists(used_at) AND attribute_not_exists(revoked_at)"


def token_key(token_hash: str) -> Item:
    return key(f"RT#{token_hash}", TOKEN_SK)


def family_member_key(family_id: str, token_hash: str) -> Item:
    """The tokens of one sign-in session, for revoking them together."""
    return key(f"RTFAMILY#{family_id}", f"RT#{token_hash}")


def user_family_key(user_id: str, family_id: str) -> Item:
    """The sign-in sessions of one user, for ending them all."""
    return key(f"RTUSER#{user_id}", f"RTFAMILY#{family_id}")


def token_item(record: RefreshTokenRecord) -> Item:
    return {**token_key(record.token_hash), **as_attributes(record), TTL_ATTRIBUTE: expiry(record.expires_at)}


def token_of(item: Item) -> RefreshTokenRecord:
    return from_item(RefreshTokenRecord, item)


class DynamoRefreshTokenStore:
    def __init__(self, client: Any, table_name: str, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self._ops = Operations(client, table_name, sleep=sleep)

    def add(self, record: RefreshTokenRecord) -> None:
        ttl = {TTL_ATTRIBUTE: expiry(record.expires_at)}
        session = attributes(family_id=record.family_id)
        self._ops.transact(
            [
                self._ops.put_new(token_item(record)),
                self._ops.put({**family_member_key(record.family_id, record.token_hash), **ttl}),
                self._ops.put({**user_family_key(record.user_id, record.family_id), **session, **ttl}),
            ]
        )

    def get(self, token_hash: str) -> RefreshTokenRecord | None:
        item = self._ops.get(token_key(token_hash))
        return token_of(item) if item is not None else None

    def consume(self, token_hash: str, at: datetime) -> RefreshTokenRecord | None:
        reply = self._ops.conditionally(
            "update_item",
            Key=token_key(token_hash),
            UpdateExpression="SET used_at = :at",
            ConditionExpression=f"{_LIVE} AND expires_at > :at",
            ExpressionAttributeValues=placeholders(at=at),
            ReturnValues="ALL_OLD",
        )
        return None if reply is None else token_of(reply["Attributes"])

    def _revoke(self, token_hash: str, at: datetime) -> bool:
        reply = self._ops.conditionally(
            "update_item",
            Key=token_key(token_hash),
            UpdateExpression="SET revoked_at = :at",
            ConditionExpression=_LIVE,
            ExpressionAttributeValues=placeholders(at=at),
        )
        return reply is not None

    def revoke_family(self, family_id: str, at: datetime) -> int:
        members = self._ops.partition(f"RTFAMILY#{family_id}")
        return sum(self._revoke(text(m, "sk").removeprefix("RT#"), at) for m in members)

    def revoke_for_user(self, user_id: str, at: datetime, keep_family: str | None = None) -> int:
        families = [text(m, "family_id") for m in self._ops.partition(f"RTUSER#{user_id}")]
        return sum(self.revoke_family(family, at) for family in families if family != keep_family)

    def prune(self, expired_before: datetime) -> int:
        """Delete tokens that expired before the cut-off: a scan, for local tools; in the cloud the TTL does it."""
        expired = list(
            self._ops.items(
                "scan",
                FilterExpression="sk = :rt AND expires_at < :cut",
                ExpressionAttributeValues=placeholders(rt=TOKEN_SK, cut=expired_before),
                **projection(["pk", "sk", "token_hash", "family_id"]),
            )
        )
        doomed: list[Item] = []
        for item in expired:
            doomed += [
                token_key(text(item, "token_hash")),
                family_member_key(text(item, "family_id"), text(item, "token_hash")),
            ]
        self._ops.delete_many(doomed)
        return len(expired)
