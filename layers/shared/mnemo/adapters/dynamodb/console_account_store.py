"""The console's sign-in records on the accounts table (mnemo.ports.console_account_store), beside the platform's
tenancy items (every partition key starts with `T#C`, so no account or tenancy item is touched):

| item | pk | sk |
|---|---|---|
| a user's password hash | `T#CPASSWORD#<user id>` | `PASSWORD` |
| a session | `T#CSESSION#<hash of its id>` | `SESSION` |
| a session in its user's list | `T#CUSER#<user id>` | `SESSION#<hash>` |
| an invitation | `T#CINVITES#<org id>` | `INVITE#<id>` |
| an invitation's token | `T#CTOKEN#<hash of the token>` | `TOKEN` |

Sessions and invitations carry a TTL at their absolute expiry, so DynamoDB deletes the expired ones by itself; the
service never trusts an item past its expiry either way. Taking an invitation is a conditional delete: of two
concurrent accepts one gets it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb.attributes import Item, attributes, text
from mnemo.adapters.dynamodb.codec import expiry, key
from mnemo.adapters.dynamodb.operations import Operations
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE
from mnemo.domain.console_accounts import InvitationRecord, SessionRecord

_SESSION_OF_USER = "SESSION#"
_INVITE = "INVITE#"


def password_key(user_id: str) -> Item:
    return key(f"T#CPASSWORD#{user_id}", "PASSWORD")


def session_key(session_hash: str) -> Item:
    return key(f"T#CSESSION#{session_hash}", "SESSION")


def user_sessions_pk(user_id: str) -> str:
    return f"T#CUSER#{user_id}"


def invitations_pk(org_id: str) -> str:
    return f"T#CINVITES#{org_id}"


def invitation_key(org_id: str, invitation_id: str) -> Item:
    return key(invitations_pk(org_id), _INVITE + invitation_id)


def token_key(token_hash: str) -> Item:
    return key(f"T#CTOKEN#{token_hash}", "TOKEN")


class DynamoConsoleAccountStore:
    def __init__(
        self,
        client: Any,
        table_name: str,
        *,
        page_size: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._ops = Operations(client, table_name, page_size=page_size, sleep=sleep)

    # ---- passwords ----

    def password_hash(self, user_id: str) -> str | None:
        item = self._ops.get(password_key(user_id))
        return None if item is None else text(item, "password_hash")

    def set_password_hash(self, user_id: str, password_hash: str) -> None:
        self._ops.client.put_item(
            TableName=self._ops.table, Item={**password_key(user_id), **attributes(password_hash=password_hash)}
        )

    # ---- sessions ----

    def add_session(self, record: SessionRecord) -> None:
        ttl = {TTL_ATTRIBUTE: expiry(record.expires_at)}
        listed = key(user_sessions_pk(record.user_id), _SESSION_OF_USER + record.session_hash)
        self._ops.transact(
            [
                self._ops.put_new({**session_key(record.session_hash), **as_attributes(record), **ttl}),
                self._ops.put({**listed, **ttl}),
            ]
        )

    def get_session(self, session_hash: str) -> SessionRecord | None:
        item = self._ops.get(session_key(session_hash))
        return None if item is None else from_item(SessionRecord, item)

    def touch_session(self, session_hash: str, at: datetime) -> None:
        self._ops.set_if_exists(session_key(session_hash), attributes(last_seen_at=at))

    def delete_session(self, session_hash: str) -> None:
        reply = self._ops.client.delete_item(
            TableName=self._ops.table, Key=session_key(session_hash), ReturnValues="ALL_OLD"
        )
        old = reply.get("Attributes")
        if old:
            self._ops.delete(key(user_sessions_pk(text(old, "user_id")), _SESSION_OF_USER + session_hash))

    def delete_sessions_of(self, user_id: str, keep: str | None = None) -> int:
        listed = self._ops.partition(user_sessions_pk(user_id), _SESSION_OF_USER)
        doomed = [text(i, "sk").removeprefix(_SESSION_OF_USER) for i in listed]
        doomed = [h for h in doomed if h != keep]
        ended = sum(self._ops.delete(session_key(h)) for h in doomed)
        self._ops.delete_many([key(user_sessions_pk(user_id), _SESSION_OF_USER + h) for h in doomed])
        return ended

    # ---- invitations ----

    def add_invitation(self, record: InvitationRecord) -> None:
        ttl = {TTL_ATTRIBUTE: expiry(record.expires_at)}
        item = {**invitation_key(record.org_id, record.id), **as_attributes(record), **ttl}
        pointer = {**token_key(record.token_hash), **attributes(org_id=record.org_id, invitation_id=record.id), **ttl}
        self._ops.transact([self._ops.put_new(item), self._ops.put_new(pointer)])

    def invitation_by_token(self, token_hash: str) -> InvitationRecord | None:
        pointer = self._ops.get(token_key(token_hash))
        if pointer is None:
            return None
        item = self._ops.get(invitation_key(text(pointer, "org_id"), text(pointer, "invitation_id")))
        return None if item is None else from_item(InvitationRecord, item)

    def invitations_of(self, org_id: str) -> list[InvitationRecord]:
        found = [from_item(InvitationRecord, i) for i in self._ops.partition(invitations_pk(org_id), _INVITE)]
        return sorted(found, key=lambda r: (r.created_at, r.id))

    def take_invitation(self, org_id: str, invitation_id: str) -> InvitationRecord | None:
        reply = self._ops.conditionally(
            "delete_item",
            Key=invitation_key(org_id, invitation_id),
            ConditionExpression="attribute_exists(pk)",
            ReturnValues="ALL_OLD",
        )
        if reply is None:
            return None
        taken = from_item(InvitationRecord, reply["Attributes"])
        self._ops.delete(token_key(taken.token_hash))
        return taken

    def delete_invitations(self, org_id: str, project_id: str | None = None) -> int:
        doomed = [r for r in self.invitations_of(org_id) if project_id is None or r.project_id == project_id]
        keys: list[Item] = []
        for record in doomed:
            keys += [invitation_key(org_id, record.id), token_key(record.token_hash)]
        self._ops.delete_many(keys)
        return len(doomed)
