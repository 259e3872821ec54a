"""The DynamoDB store of platform tenancy (mnemo.ports.tenancy_store): users, organizations, projects,
members, project keys, and each project's events, exports, feedback and counters.

The items live in the accounts table (keys `pk`/`sk`, no secondary index, TTL on `ttl`), every partition key
starting with `T#`, so they never meet an account item. See "Platform tenancy" in README.md beside this file.
Reads are strongly consistent reads of the base table; writes that must not double or lose anything (a user's
email, a key's hash, a new organization or project with its owner, an event and its unfinished marker) are
conditional or transactions.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.dynamodb.items import Item, key
from mnemo.adapters.dynamodb.items import Sequence as WriteOrder
from mnemo.adapters.dynamodb.operations import (
    MAX_ITEM_BYTES,
    Operations,
    TransactionCancelledError,
    error_code,
    fitting,
    item_size,
    projection,
)
from mnemo.adapters.dynamodb.tables import TTL_ATTRIBUTE, ensure_table, key_table
from mnemo.domain.tenancy import (
    EventStatus,
    Feedback,
    Member,
    MemoryExport,
    Organization,
    PlatformEvent,
    PlatformUser,
    Project,
    ProjectEntity,
    ProjectKey,
    Role,
)
from mnemo.domain.timefmt import from_iso, iso
from mnemo.errors import ConflictError

# A marker per PENDING or RUNNING event of every project, in UNFINISHED_SHARDS partitions by project (three writes
# per asynchronous add: one partition would cap the whole service at a few hundred adds a second).
UNFINISHED = "T#UNFINISHED"
UNFINISHED_SHARDS = 16
_UNFINISHED_STATES = (EventStatus.PENDING, EventStatus.RUNNING)


def create_tenancy_table(client: Any, table_name: str) -> bool:
    """For tests and local tools: the table as template.yaml declares the accounts table (which holds these)."""
    return ensure_table(client, key_table(table_name), ttl_attribute=TTL_ATTRIBUTE)


# ---- keys ---------------------------------------------------------------------------------------------------


def user_key(user_id: str) -> Item:
    return key(f"T#USER#{user_id}", "USER")


def email_key(email: str) -> Item:
    return key(f"T#EMAIL#{email}", "EMAIL")


def org_pk(org_id: str) -> str:
    return f"T#ORG#{org_id}"


def project_pk(project_id: str) -> str:
    return f"T#PROJ#{project_id}"


def key_item_key(key_id: str) -> Item:
    return key(f"T#KEY#{key_id}", "KEY")


def hash_key(key_hash: str) -> Item:
    return key(f"T#KEYHASH#{key_hash}", "KEYHASH")


def unfinished_pk(project_id: str) -> str:
    return f"{UNFINISHED}#{zlib.crc32(project_id.encode('utf-8')) % UNFINISHED_SHARDS}"


def unfinished_marker(project_id: str, event_sk: str) -> Item:
    """The marker of a PENDING or RUNNING event, in its project's shard."""
    return {**key(unfinished_pk(project_id), event_sk), "project_id": _s(project_id)}


def event_count_key(project_id: str, event_type: str) -> Item:
    return key(project_pk(project_id), f"EVENTCOUNT#{event_type}")


def events_pk(project_id: str) -> str:
    return f"T#EVENTS#{project_id}"


def exports_pk(project_id: str) -> str:
    return f"T#EXPORTS#{project_id}"


def export_parts_pk(project_id: str) -> str:
    return f"T#EXPORTPARTS#{project_id}"


# ---- attribute helpers --------------------------------------------------------------------------------------


def _s(value: str) -> dict[str, Any]:
    return {"S": value}


def _opt(item: Item, name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value["S"])


def _moment(item: Item, name: str) -> datetime | None:
    text = _opt(item, name)
    return from_iso(text) if text else None


def _optional(**values: str | datetime | None) -> Item:
    return {name: _s(iso(v) if isinstance(v, datetime) else v) for name, v in values.items() if v is not None}


def _condition_failed(exc: ClientError) -> bool:
    return error_code(exc) == "ConditionalCheckFailedException"


# JSON larger than this is stored zlib-compressed, as `<name>_z` (binary), so a large add's event fits an item.
INLINE_JSON_BYTES = 16 * 1024
# An export's compressed result beyond this is stored in parts of this size, in items of their own.
EXPORT_PART_BYTES = 300 * 1024
EVENT_BYTES = MAX_ITEM_BYTES - 4096  # an event's attributes, with room for its keys


def _json_attribute(name: str, value: Any) -> Item:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= INLINE_JSON_BYTES:
        return {name: _s(text)}
    return {f"{name}_z": {"B": zlib.compress(text.encode("utf-8"), 6)}}


def _json_value(item: Item, name: str) -> Any:
    packed = item.get(f"{name}_z")
    if packed is not None:
        return json.loads(zlib.decompress(bytes(packed["B"])))
    return json.loads(item[name]["S"])


# ---- items --------------------------------------------------------------------------------------------------


def _user_item(user: PlatformUser) -> Item:
    return {**user_key(user.id), "id": _s(user.id), "email": _s(user.email), "created_at": _s(iso(user.created_at))}


def _user(item: Item) -> PlatformUser:
    return PlatformUser(item["id"]["S"], item["email"]["S"], from_iso(item["created_at"]["S"]))


def _org_item(org: Organization) -> Item:
    return {
        **key(org_pk(org.id), "ORG"),
        "id": _s(org.id),
        "name": _s(org.name),
        "created_at": _s(iso(org.created_at)),
        "updated_at": _s(iso(org.updated_at)),
    }


def _org(item: Item) -> Organization:
    return Organization(
        item["id"]["S"], item["name"]["S"], from_iso(item["created_at"]["S"]), from_iso(item["updated_at"]["S"])
    )


def _project_item(p: Project) -> Item:
    return {
        **key(project_pk(p.id), "PROJ"),
        "id": _s(p.id),
        "org_id": _s(p.org_id),
        "name": _s(p.name),
        "description": _s(p.description),
        "custom_categories": _s(json.dumps(list(p.custom_categories), ensure_ascii=False)),
        "multilingual": {"BOOL": p.multilingual},
        "decay": {"BOOL": p.decay},
        "is_default": {"BOOL": p.is_default},
        "created_at": _s(iso(p.created_at)),
        "updated_at": _s(iso(p.updated_at)),
        **_optional(custom_instructions=p.custom_instructions),
    }


def _project(item: Item) -> Project:
    return Project(
        id=item["id"]["S"],
        org_id=item["org_id"]["S"],
        name=item["name"]["S"],
        description=item["description"]["S"],
        custom_instructions=_opt(item, "custom_instructions"),
        custom_categories=tuple(json.loads(item["custom_categories"]["S"])),
        multilingual=bool(item["multilingual"]["BOOL"]),
        decay=bool(item["decay"]["BOOL"]),
        is_default=bool(item["is_default"]["BOOL"]),
        created_at=from_iso(item["created_at"]["S"]),
        updated_at=from_iso(item["updated_at"]["S"]),
    )


def _key_item(k: ProjectKey) -> Item:
    return {
        **key_item_key(k.id),
        "id": _s(k.id),
        "project_id": _s(k.project_id),
        "user_id": _s(k.user_id),
        "label": _s(k.label),
        "key_prefix": _s(k.key_prefix),
        "key_hash": _s(k.key_hash),
        "created_at": _s(iso(k.created_at)),
        **_optional(last_used_at=k.last_used_at, revoked_at=k.revoked_at),
    }


def _project_key(item: Item) -> ProjectKey:
    return ProjectKey(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        user_id=item["user_id"]["S"],
        label=item["label"]["S"],
        key_prefix=item["key_prefix"]["S"],
        key_hash=item["key_hash"]["S"],
        created_at=from_iso(item["created_at"]["S"]),
        last_used_at=_moment(item, "last_used_at"),
        revoked_at=_moment(item, "revoked_at"),
    )


def _event_attributes(e: PlatformEvent) -> Item:
    """The event's attributes; its payload and results compressed when large. Should they still not fit an item
    (an add of thousands of tiny messages), the results keep each memory's id and event without its text: the
    memories are stored by then, and an event that cannot be saved would fail an add that succeeded."""
    fixed: Item = {
        "id": _s(e.id),
        "project_id": _s(e.project_id),
        "event_type": _s(e.event_type),
        "status": _s(e.status.value),
        "created_at": _s(iso(e.created_at)),
        "updated_at": _s(iso(e.updated_at)),
        "attempts": {"N": str(e.attempts)},
        **_optional(error=e.error, started_at=e.started_at, completed_at=e.completed_at),
        **_json_attribute("payload", e.payload),
    }
    attributes = {**fixed, **_json_attribute("results", e.results)}
    if item_size(attributes) > EVENT_BYTES:
        slim = [{k: r[k] for k in ("id", "event") if k in r} for r in e.results]
        attributes = {**fixed, **_json_attribute("results", slim)}
    return attributes


def _event(item: Item) -> PlatformEvent:
    return PlatformEvent(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        event_type=item["event_type"]["S"],
        status=EventStatus(item["status"]["S"]),
        payload=_json_value(item, "payload"),
        results=_json_value(item, "results"),
        error=_opt(item, "error"),
        created_at=from_iso(item["created_at"]["S"]),
        updated_at=from_iso(item["updated_at"]["S"]),
        started_at=_moment(item, "started_at"),
        completed_at=_moment(item, "completed_at"),
        attempts=int(item.get("attempts", {}).get("N", "0")),
    )


def _export_attributes(x: MemoryExport) -> Item:
    """Everything but the result (inline or in parts: see DynamoTenancyStore.save_export)."""
    return {
        "id": _s(x.id),
        "project_id": _s(x.project_id),
        "schema": _s(json.dumps(x.schema, ensure_ascii=False)),
        "filters": _s(json.dumps(x.filters, ensure_ascii=False)),
        "created_at": _s(iso(x.created_at)),
        **_optional(instructions=x.instructions),
    }


def _export(item: Item, result: Any) -> MemoryExport:
    return MemoryExport(
        id=item["id"]["S"],
        project_id=item["project_id"]["S"],
        schema=json.loads(item["schema"]["S"]),
        filters=json.loads(item["filters"]["S"]),
        instructions=_opt(item, "instructions"),
        result=result,
        created_at=from_iso(item["created_at"]["S"]),
    )


class DynamoTenancyStore:
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

    @property
    def _client(self) -> Any:
        return self._ops.client

    @property
    def _table(self) -> str:
        return self._ops.table

    def _partition(self, pk: str, prefix: str | None = None) -> list[Item]:
        """Every item of a partition (strongly consistent, paginated), optionally those whose sk starts so."""
        if prefix is None:
            return list(
                self._ops.items(
                    "query",
                    KeyConditionExpression="pk = :pk",
                    ExpressionAttributeValues={":pk": _s(pk)},
                    ConsistentRead=True,
                )
            )
        return list(
            self._ops.items(
                "query",
                KeyConditionExpression="pk = :pk AND begins_with(sk, :pre)",
                ExpressionAttributeValues={":pk": _s(pk), ":pre": _s(prefix)},
                ConsistentRead=True,
            )
        )

    def _ordered_sk(self, created_at: datetime, record_id: str) -> str:
        """Creation time, then write order (SQLite's seq), then the id: sorts as the records were made."""
        return f"{iso(created_at)}#{self._seq.next():020d}#{record_id}"

    def _delete_keys(self, keys: Iterable[Item]) -> None:
        unique = {(k["pk"]["S"], k["sk"]["S"]): k for k in keys}
        self._ops.batch_write([{"DeleteRequest": {"Key": k}} for k in unique.values()])

    # ---- users ----

    def user_by_email(self, email: str) -> PlatformUser | None:
        claim = self._ops.get(email_key(email))
        return None if claim is None else self.user_by_id(claim["user_id"]["S"])

    def user_by_id(self, user_id: str) -> PlatformUser | None:
        item = self._ops.get(user_key(user_id))
        return None if item is None else _user(item)

    def add_user(self, user: PlatformUser) -> PlatformUser:
        """The email claim and the user in one transaction: of two concurrent sign-ups one user is stored."""
        claim = {**email_key(user.email), "user_id": _s(user.id)}
        try:
            self._ops.transact([self._ops.put_new(claim), self._ops.put_new(_user_item(user))])
        except TransactionCancelledError:
            existing = self.user_by_email(user.email)
            if existing is None:
                raise ConflictError(f"A platform user with id {user.id} already exists.") from None
            return existing
        return user

    def _users(self, user_ids: Iterable[str]) -> dict[str, PlatformUser]:
        found = self._ops.batch_get([user_key(u) for u in user_ids])
        return {item["id"]["S"]: _user(item) for item in found}

    # ---- organizations ----

    def add_org(self, org: Organization, owner: PlatformUser) -> None:
        try:
            self._ops.transact(
                [
                    self._ops.put_new(_org_item(org)),
                    self._ops.put(self._member_item(org_pk(org.id), owner.id, Role.OWNER)),
                    self._ops.put(self._org_of_user(org.id, owner.id)),
                ]
            )
        except TransactionCancelledError:
            raise ConflictError(f"An organization with id {org.id} already exists.") from None

    def get_org(self, org_id: str) -> Organization | None:
        item = self._ops.get(key(org_pk(org_id), "ORG"))
        return None if item is None else _org(item)

    def orgs_of(self, user_id: str) -> list[Organization]:
        pointers = self._partition(user_key(user_id)["pk"]["S"], "ORG#")
        found = self._ops.batch_get([key(org_pk(p["org_id"]["S"]), "ORG") for p in pointers])
        return sorted((_org(item) for item in found), key=lambda o: (o.created_at, o.id))

    def delete_org(self, org_id: str) -> None:
        doomed = self._partition(org_pk(org_id))
        pointers = [self._org_of_user(org_id, m["user_id"]["S"]) for m in doomed if m["sk"]["S"].startswith("MEMBER#")]
        self._delete_keys([{"pk": i["pk"], "sk": i["sk"]} for i in (*doomed, *pointers)])

    def org_members(self, org_id: str) -> list[Member]:
        return self._members(org_pk(org_id), org_id)

    def set_org_member(self, org_id: str, user: PlatformUser, role: Role) -> None:
        self._set_member(org_pk(org_id), user.id, role)
        self._client.put_item(TableName=self._table, Item=self._org_of_user(org_id, user.id))

    def remove_org_member(self, org_id: str, user_id: str) -> bool:
        removed = self._remove_member(org_pk(org_id), user_id)
        pointer = self._org_of_user(org_id, user_id)
        self._client.delete_item(TableName=self._table, Key={"pk": pointer["pk"], "sk": pointer["sk"]})
        return removed

    def _org_of_user(self, org_id: str, user_id: str) -> Item:
        return {**key(user_key(user_id)["pk"]["S"], f"ORG#{org_id}"), "org_id": _s(org_id)}

    # ---- projects ----

    def add_project(self, project: Project, owner: PlatformUser) -> None:
        try:
            self._ops.transact(
                [
                    self._ops.put_new(_project_item(project)),
                    self._ops.put({**key(org_pk(project.org_id), f"PROJ#{project.id}"), "project_id": _s(project.id)}),
                    self._ops.put(self._member_item(project_pk(project.id), owner.id, Role.OWNER)),
                ]
            )
        except TransactionCancelledError:
            raise ConflictError(f"A project with id {project.id} already exists.") from None

    def get_project(self, project_id: str) -> Project | None:
        item = self._ops.get(key(project_pk(project_id), "PROJ"))
        return None if item is None else _project(item)

    def projects_of_org(self, org_id: str) -> list[Project]:
        pointers = self._partition(org_pk(org_id), "PROJ#")
        found = self._ops.batch_get([key(project_pk(p["project_id"]["S"]), "PROJ") for p in pointers])
        return sorted((_project(item) for item in found), key=lambda p: (p.created_at, p.id))

    def save_project(self, project: Project) -> None:
        """Overwrite a stored project (a project deleted meanwhile stays deleted)."""
        try:
            self._client.put_item(
                TableName=self._table, Item=fitting(_project_item(project)), ConditionExpression="attribute_exists(pk)"
            )
        except ClientError as exc:
            if not _condition_failed(exc):
                raise

    def delete_project(self, project_id: str) -> None:
        """Everything of the project, in batches: the events' by-id pointers first (a worker finishing an add then
        writes nothing back: see update_event), then the events, exports and other records, then its members and
        keys, and the project item with the org's pointer to it last. A delete interrupted midway leaves a
        project its owners can still reach with their keys, and deleting it again finishes the job."""
        pointers: list[Item] = []
        records: list[Item] = []
        access: list[Item] = []
        last: list[Item] = []
        for item in self._partition(project_pk(project_id)):
            sk, item_key = item["sk"]["S"], {"pk": item["pk"], "sk": item["sk"]}
            if sk == "PROJ":
                last = [key(org_pk(item["org_id"]["S"]), f"PROJ#{project_id}"), item_key]
            elif sk.startswith("EVENTID#"):
                pointers.append(item_key)
            elif sk.startswith(("KEY#", "MEMBER#")):
                if sk.startswith("KEY#"):
                    access += [key_item_key(item["key_id"]["S"]), hash_key(item["key_hash"]["S"])]
                access.append(item_key)
            else:
                records.append(item_key)
        for item in self._partition(events_pk(project_id)):
            records.append({"pk": item["pk"], "sk": item["sk"]})
            records.append(key(unfinished_pk(project_id), item["sk"]["S"]))  # deleting an absent one is a no-op
        for partition in (exports_pk(project_id), export_parts_pk(project_id)):
            records.extend({"pk": i["pk"], "sk": i["sk"]} for i in self._partition(partition))
        for batch in (pointers, records, access, last):
            self._delete_keys(batch)

    def project_members(self, project_id: str) -> list[Member]:
        return self._members(project_pk(project_id), project_id)

    def set_project_member(self, project_id: str, user: PlatformUser, role: Role) -> None:
        self._set_member(project_pk(project_id), user.id, role)

    def remove_project_member(self, project_id: str, user_id: str) -> bool:
        return self._remove_member(project_pk(project_id), user_id)

    # ---- members (both kinds): items `MEMBER#<user id>` in the org's or project's partition ----

    def _member_item(self, pk: str, user_id: str, role: Role) -> Item:
        return {
            **key(pk, f"MEMBER#{user_id}"),
            "user_id": _s(user_id),
            "role": _s(role.value),
            "seq": {"N": str(self._seq.next())},
        }

    def _members(self, pk: str, scope_id: str) -> list[Member]:
        rows = sorted(self._partition(pk, "MEMBER#"), key=lambda i: int(i["seq"]["N"]))
        users = self._users(r["user_id"]["S"] for r in rows)
        return [
            Member(scope_id, users[r["user_id"]["S"]], Role(r["role"]["S"])) for r in rows if r["user_id"]["S"] in users
        ]

    def _set_member(self, pk: str, user_id: str, role: Role) -> None:
        """A new member joins last; a member's role change keeps their place."""
        self._client.update_item(
            TableName=self._table,
            Key=key(pk, f"MEMBER#{user_id}"),
            UpdateExpression="SET #r = :r, #u = :u, #s = if_not_exists(#s, :s)",
            ExpressionAttributeNames={"#r": "role", "#u": "user_id", "#s": "seq"},
            ExpressionAttributeValues={":r": _s(role.value), ":u": _s(user_id), ":s": {"N": str(self._seq.next())}},
        )

    def _remove_member(self, pk: str, user_id: str) -> bool:
        reply = self._client.delete_item(
            TableName=self._table, Key=key(pk, f"MEMBER#{user_id}"), ReturnValues="ALL_OLD"
        )
        return bool(reply.get("Attributes"))

    # ---- project keys ----

    def add_key(self, key_: ProjectKey) -> None:
        """The key, its hash claim and its place in the project, in one transaction: a hash is never stored twice."""
        pointer = {
            **key(project_pk(key_.project_id), f"KEY#{key_.id}"),
            "key_id": _s(key_.id),
            "key_hash": _s(key_.key_hash),
        }
        claim = {**hash_key(key_.key_hash), "key_id": _s(key_.id)}
        try:
            self._ops.transact([self._ops.put_new(_key_item(key_)), self._ops.put_new(claim), self._ops.put(pointer)])
        except TransactionCancelledError:
            raise ConflictError("A project key with this id or hash already exists.") from None

    def key_by_hash(self, key_hash: str) -> ProjectKey | None:
        claim = self._ops.get(hash_key(key_hash))
        if claim is None:
            return None
        item = self._ops.get(key_item_key(claim["key_id"]["S"]))
        if item is None or "revoked_at" in item:
            return None
        return _project_key(item)

    def keys_of_project(self, project_id: str) -> list[ProjectKey]:
        pointers = self._partition(project_pk(project_id), "KEY#")
        found = [_project_key(i) for i in self._ops.batch_get([key_item_key(p["key_id"]["S"]) for p in pointers])]
        return sorted((k for k in found if k.project_id == project_id), key=lambda k: (k.created_at, k.id))

    def revoke_key(self, project_id: str, key_id: str, at: datetime) -> bool:
        try:
            self._client.update_item(
                TableName=self._table,
                Key=key_item_key(key_id),
                UpdateExpression="SET #r = :at",
                ConditionExpression="attribute_exists(pk) AND #p = :p AND attribute_not_exists(#r)",
                ExpressionAttributeNames={"#r": "revoked_at", "#p": "project_id"},
                ExpressionAttributeValues={":at": _s(iso(at)), ":p": _s(project_id)},
            )
        except ClientError as exc:
            if _condition_failed(exc):
                return False
            raise
        return True

    def touch_key(self, key_id: str, at: datetime) -> None:
        try:
            self._client.update_item(
                TableName=self._table,
                Key=key_item_key(key_id),
                UpdateExpression="SET #l = :at",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#l": "last_used_at"},
                ExpressionAttributeValues={":at": _s(iso(at))},
            )
        except ClientError as exc:
            if not _condition_failed(exc):
                raise

    # ---- events: `T#EVENTS#<project>` / `<created>#<write order>#<id>`, found by id through a pointer ----

    def _event_sk(self, project_id: str, event_id: str) -> str | None:
        pointer = self._ops.get(key(project_pk(project_id), f"EVENTID#{event_id}"))
        return None if pointer is None else str(pointer["event_sk"]["S"])

    def save_event(self, event: PlatformEvent) -> None:
        """Insert or overwrite, in one transaction with the event's marker among the unfinished ones (put while
        PENDING or RUNNING, deleted once finished) and, on insert, the count of the project's events of its
        type (`EVENTCOUNT#<type>`: listing events pages without reading them all to count them)."""
        for _attempt in range(5):
            sk = self._event_sk(event.project_id, event.id)
            actions: list[dict[str, Any]] = []
            if sk is None:
                sk = self._ordered_sk(event.created_at, event.id)
                pointer = {**key(project_pk(event.project_id), f"EVENTID#{event.id}"), "event_sk": _s(sk)}
                actions.append(self._ops.put_new(pointer))  # a concurrent first save: read the winner's sk
                actions.append(self._count_event(event))
            try:
                self._ops.transact(actions + self._event_writes(event, sk))
                return
            except TransactionCancelledError:
                continue
        raise RuntimeError(f"Event {event.id} kept changing while being saved; giving up.")

    def update_event(self, event: PlatformEvent) -> bool:
        """The overwrite, on the condition that the event's by-id pointer is still there (a project delete removes
        it first: a worker finishing an add of a deleted project writes nothing back)."""
        sk = self._event_sk(event.project_id, event.id)
        if sk is None:
            return False
        pointer = key(project_pk(event.project_id), f"EVENTID#{event.id}")
        still_there = {
            "ConditionCheck": {"TableName": self._table, "Key": pointer, "ConditionExpression": "attribute_exists(pk)"}
        }
        try:
            self._ops.transact([still_there, *self._event_writes(event, sk)])
        except TransactionCancelledError as cancelled:
            if cancelled.failed(0):
                return False
            raise
        return True

    def _event_writes(self, event: PlatformEvent, sk: str) -> list[dict[str, Any]]:
        """The event item, and its unfinished marker put or deleted."""
        marker = unfinished_marker(event.project_id, sk)
        writes = [self._ops.put({**key(events_pk(event.project_id), sk), **_event_attributes(event)})]
        if event.status in _UNFINISHED_STATES:
            writes.append(self._ops.put(marker))
        else:
            writes.append({"Delete": {"TableName": self._table, "Key": {"pk": marker["pk"], "sk": marker["sk"]}}})
        return writes

    def get_event(self, project_id: str, event_id: str) -> PlatformEvent | None:
        sk = self._event_sk(project_id, event_id)
        item = None if sk is None else self._ops.get(key(events_pk(project_id), sk))
        return None if item is None else _event(item)

    def events_of_project(self, project_id: str, limit: int, offset: int) -> list[PlatformEvent]:
        if limit <= 0:
            return []
        out: list[PlatformEvent] = []
        items = self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": _s(events_pk(project_id))},
            ScanIndexForward=False,
            ConsistentRead=True,
            first_page=offset + limit,
        )
        for position, item in enumerate(items):
            if position >= offset:
                out.append(_event(item))
            if len(out) >= limit:
                break
        return out

    def _count_event(self, event: PlatformEvent) -> dict[str, Any]:
        return {
            "Update": {
                "TableName": self._table,
                "Key": event_count_key(event.project_id, event.event_type),
                "UpdateExpression": "ADD #v :one",
                "ExpressionAttributeNames": {"#v": "value"},
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }
        }

    def count_events(self, project_id: str, event_type: str | None = None) -> int:
        if event_type is not None:
            found = self._ops.get(event_count_key(project_id, event_type))
            return 0 if found is None else int(found["value"]["N"])
        return sum(int(i["value"]["N"]) for i in self._partition(project_pk(project_id), "EVENTCOUNT#"))

    def unfinished_events(self) -> list[PlatformEvent]:
        shards = (self._partition(f"{UNFINISHED}#{n}") for n in range(UNFINISHED_SHARDS))
        markers = sorted((m for shard in shards for m in shard), key=lambda m: m["sk"]["S"])  # oldest first
        found = self._ops.batch_get([key(events_pk(m["project_id"]["S"]), m["sk"]["S"]) for m in markers])
        by_key = {(i["pk"]["S"], i["sk"]["S"]): i for i in found}
        events = [by_key.get((events_pk(m["project_id"]["S"]), m["sk"]["S"])) for m in markers]
        orphans = [{"pk": m["pk"], "sk": m["sk"]} for m, e in zip(markers, events, strict=True) if e is None]
        self._delete_keys(orphans)  # left by a delete of their project: nothing will ever finish them
        return [e for e in (_event(i) for i in events if i is not None) if e.status in _UNFINISHED_STATES]

    # ---- exports, feedback, counters ----

    def save_export(self, export: MemoryExport) -> None:
        """The result compressed, inline when it fits, else in parts written first (`T#EXPORTPARTS#<project>` /
        `<export sk>#<n>`): the export item, written last, is what makes the export exist."""
        sk = self._ordered_sk(export.created_at, export.id)
        pointer = {**key(project_pk(export.project_id), f"EXPORTID#{export.id}"), "export_sk": _s(sk)}
        packed = zlib.compress(json.dumps(export.result, ensure_ascii=False).encode("utf-8"), 6)
        item = {**key(exports_pk(export.project_id), sk), **_export_attributes(export)}
        if len(packed) <= EXPORT_PART_BYTES:
            item["result_z"] = {"B": packed}
        else:
            fitting({**item, "result_parts": {"N": "0"}})  # before any part is written
            parts = [packed[i : i + EXPORT_PART_BYTES] for i in range(0, len(packed), EXPORT_PART_BYTES)]
            part_pk = export_parts_pk(export.project_id)
            self._ops.batch_write(
                [
                    {"PutRequest": {"Item": {**key(part_pk, f"{sk}#{n:05d}"), "data": {"B": part}}}}
                    for n, part in enumerate(parts)
                ]
            )
            item["result_parts"] = {"N": str(len(parts))}
        try:
            self._ops.transact([self._ops.put_new(pointer), self._ops.put(item)])
        except TransactionCancelledError:
            raise ConflictError(f"An export with id {export.id} already exists.") from None

    def _export_of(self, item: Item) -> MemoryExport:
        if "result_parts" in item:
            parts = self._partition(export_parts_pk(item["project_id"]["S"]), f"{item['sk']['S']}#")
            packed = b"".join(bytes(p["data"]["B"]) for p in parts[: int(item["result_parts"]["N"])])
            return _export(item, json.loads(zlib.decompress(packed)))
        return _export(item, _json_value(item, "result"))

    def get_export(self, project_id: str, export_id: str) -> MemoryExport | None:
        pointer = self._ops.get(key(project_pk(project_id), f"EXPORTID#{export_id}"))
        item = None if pointer is None else self._ops.get(key(exports_pk(project_id), pointer["export_sk"]["S"]))
        return None if item is None else self._export_of(item)

    def latest_export(self, project_id: str, filters: dict[str, Any] | None = None) -> MemoryExport | None:
        """Newest first, reading each export's filters only; the result of the one found alone is decoded."""
        names = ["pk", "sk", "filters"]
        for item in self._ops.items(
            "query",
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": _s(exports_pk(project_id))},
            ScanIndexForward=False,
            ConsistentRead=True,
            **projection(names),
        ):
            if filters is None or json.loads(item["filters"]["S"]) == filters:
                found = self._ops.get({"pk": item["pk"], "sk": item["sk"]})
                return None if found is None else self._export_of(found)
        return None

    def save_feedback(self, feedback: Feedback) -> None:
        item = {
            **key(project_pk(feedback.project_id), f"FEEDBACK#{feedback.memory_id}"),
            "memory_id": _s(feedback.memory_id),
            "project_id": _s(feedback.project_id),
            "updated_at": _s(iso(feedback.updated_at)),
            **_optional(feedback=feedback.feedback, reason=feedback.reason),
        }
        self._client.put_item(TableName=self._table, Item=fitting(item))

    def get_feedback(self, project_id: str, memory_id: str) -> Feedback | None:
        item = self._ops.get(key(project_pk(project_id), f"FEEDBACK#{memory_id}"))
        if item is None:
            return None
        return Feedback(
            item["memory_id"]["S"],
            item["project_id"]["S"],
            _opt(item, "feedback"),
            _opt(item, "reason"),
            from_iso(item["updated_at"]["S"]),
        )

    # ---- entities created explicitly: `ENTITY#<type>#<id>` in the project's partition ----

    def add_entity(self, entity: ProjectEntity) -> bool:
        item = {
            **key(project_pk(entity.project_id), f"ENTITY#{entity.type}#{entity.entity_id}"),
            "project_id": _s(entity.project_id),
            "type": _s(entity.type),
            "entity_id": _s(entity.entity_id),
            "name": _s(entity.name),
            "metadata": _s(json.dumps(entity.metadata)),
            "created_at": _s(iso(entity.created_at)),
            "updated_at": _s(iso(entity.updated_at)),
        }
        try:
            self._client.put_item(
                TableName=self._table, Item=fitting(item), ConditionExpression="attribute_not_exists(pk)"
            )
        except ClientError as exc:
            if _condition_failed(exc):
                return False
            raise
        return True

    def entities_of_project(self, project_id: str) -> list[ProjectEntity]:
        """The sort key orders them by type, then id."""
        return [
            ProjectEntity(
                item["project_id"]["S"],
                item["type"]["S"],
                item["entity_id"]["S"],
                item["name"]["S"],
                json.loads(item["metadata"]["S"]),
                from_iso(item["created_at"]["S"]),
                from_iso(item["updated_at"]["S"]),
            )
            for item in self._partition(project_pk(project_id), "ENTITY#")
        ]

    def delete_entity(self, project_id: str, entity_type: str, entity_id: str) -> bool:
        reply = self._client.delete_item(
            TableName=self._table,
            Key=key(project_pk(project_id), f"ENTITY#{entity_type}#{entity_id}"),
            ReturnValues="ALL_OLD",
        )
        return "Attributes" in reply

    def bump_counter(self, project_id: str, name: str, by: int = 1) -> None:
        """An atomic ADD: concurrent bumps never lose one."""
        self._client.update_item(
            TableName=self._table,
            Key=key(project_pk(project_id), f"COUNTER#{name}"),
            UpdateExpression="ADD #v :by SET #n = :name",
            ExpressionAttributeNames={"#v": "value", "#n": "name"},
            ExpressionAttributeValues={":by": {"N": str(by)}, ":name": _s(name)},
        )

    def counters(self, project_id: str) -> dict[str, int]:
        return {i["name"]["S"]: int(i["value"]["N"]) for i in self._partition(project_pk(project_id), "COUNTER#")}
