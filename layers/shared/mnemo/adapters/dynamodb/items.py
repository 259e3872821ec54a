"""Memory, history, hash-claim, entity and setting items in DynamoDB's attribute-value form, and their keys.

See README.md beside this file for the key design.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Any

import numpy as np

from mnemo.adapters.dynamodb.attributes import (
    Item,
    attributes,
    binary,
    moment_of,
    text,
    text_or_none,
    value,
)
from mnemo.adapters.dynamodb.codec import json_of, json_string, key, ordered_sk, shard_of
from mnemo.adapters.dynamodb.record_codec import as_attributes, from_item
from mnemo.adapters.dynamodb.schema import ENTITY_SHARDS, NAMESPACE_SHARDS, TIME_SHARDS
from mnemo.domain.entities import EntityType
from mnemo.domain.memory import HistoryEntry, LifecycleState, MemoryRecord, Scope, SourceMessage
from mnemo.domain.timefmt import date_or_none
from mnemo.ports.embedder import Vectors

MEMORY_SK = "MEM"
HASH_SK = "HASH"
ENTITY_SK = "ENT"
SETTING_SK = "SETTING"
HISTORY_PREFIX = "HIST#"
# The partition of the table's outbox (outbox.py): the webhook events of every namespace's changes, until published.
# The plain store's table-wide maintenance (`clear`) leaves it alone.
OUTBOX_PK = "OUTBOX"

_SCOPE_KEYS = {"user_id": "user_pk", "agent_id": "agent_pk", "run_id": "run_pk"}


# ---- keys ---------------------------------------------------------------------------------------------
# `ns` is the namespace prefix of a namespaced store ("" for the plain one): it starts every partition key the
# store writes or queries, in the table and in every index (see "Namespaces" in README.md).

NAMESPACE_MARK = "NS#"  # no key of the plain store starts with it
_NAMESPACE = re.compile(r"^[a-z0-9_-]{1,64}$")


def namespace_prefix(namespace: str) -> str:
    """`NS#<namespace>#`. The namespace has no `#`, so one namespace's prefix never starts another's keys."""
    if not _NAMESPACE.match(namespace):
        raise ValueError(f"Invalid namespace: {namespace!r} (lowercase letters, digits, _ and -; at most 64)")
    return f"{NAMESPACE_MARK}{namespace}#"


def memory_pk(memory_id: str, ns: str = "") -> str:
    return f"{ns}MEM#{memory_id}"


def memory_key(memory_id: str, ns: str = "") -> Item:
    return key(memory_pk(memory_id, ns), MEMORY_SK)


def claim_pk(scope: Scope, text_hash: str, ns: str = "") -> str:
    """The dedup claim of (user, agent, run, text hash): at most one active memory holds it."""
    owners = json.dumps([scope.user_id, scope.agent_id, scope.run_id], separators=(",", ":"), ensure_ascii=False)
    if len(owners.encode("utf-8")) > MAX_CLAIM_OWNERS_BYTES:  # three long ids: their digest keeps the key short
        owners = "SHA256:" + hashlib.sha256(owners.encode("utf-8")).hexdigest()
    return f"{ns}HASH#{owners}#{text_hash}"


MAX_CLAIM_OWNERS_BYTES = 1024  # a claim's partition key stays far below DynamoDB's 2048 bytes


def claim_of(record: MemoryRecord, ns: str = "") -> str | None:
    return claim_pk(record.scope, record.hash, ns) if record.state is LifecycleState.ACTIVE else None


def entity_key(kind: EntityType, entity_id: str, ns: str = "") -> Item:
    return key(f"{ns}ENT#{kind.value}#{entity_id}", ENTITY_SK)


def entity_partition(kind: EntityType, shard: int, ns: str = "") -> str:
    return f"{ns}{kind.value}#{shard}"


def setting_key(name: str, ns: str = "") -> Item:
    return key(f"{ns}SETTING#{name}", SETTING_SK)


def scope_partition(field: str, value: str, ns: str = "") -> str:
    """The partition of one user, agent or run in its index (prefixed, so an empty id is still a valid key)."""
    return f"{ns}{field[0].upper()}#{value}"


def time_partition(shard: int, ns: str = "") -> str:
    return f"{ns}ALL#{shard}"


def namespace_partition(shard: int, ns: str) -> str:
    return f"{ns}PART#{shard}"


def namespace_entry(pk: str) -> Item:
    """`ns_pk` for an item of a namespace (its entry in the by_namespace index); nothing for the plain store's."""
    if not pk.startswith(NAMESPACE_MARK):
        return {}
    ns = pk[: pk.index("#", len(NAMESPACE_MARK)) + 1]
    return attributes(ns_pk=namespace_partition(shard_of(pk, NAMESPACE_SHARDS), ns))


# ---- memories -----------------------------------------------------------------------------------------


def vector_bytes(vector: Vectors) -> bytes:
    return np.asarray(vector, dtype=np.float32).reshape(-1).tobytes()


def vector_of(item: Item) -> Vectors:
    out: Vectors = np.frombuffer(binary(item, "vec"), dtype=np.float32)
    return out


def record_attributes(record: MemoryRecord, created_sk: str, ns: str = "") -> tuple[Item, list[str]]:
    """The record's attributes (indexed keys included), and the names of optional ones it does not have."""
    optional = {
        "user_id": record.scope.user_id,
        "agent_id": record.scope.agent_id,
        "run_id": record.scope.run_id,
        "app_id": record.scope.app_id,
        "actor_id": record.actor_id,
        "role": record.role,
        "attributed_to": record.attributed_to,
        "replaced_by": record.replaced_by,
        "expiration_date": record.expiration_date.isoformat() if record.expiration_date else None,
    }
    for field, index_key in _SCOPE_KEYS.items():  # an index key where the record has the scope id, else absent
        given = optional[field]
        optional[index_key] = None if given is None else scope_partition(field, given, ns)
    optional["guard"] = claim_of(record, ns)
    attrs = {
        **attributes(
            id=record.id,
            text=record.text,
            hash=record.hash,
            created_at=record.created_at,
            updated_at=record.updated_at,
            state=record.state,
            created_sk=created_sk,
            time_pk=time_partition(shard_of(record.id, TIME_SHARDS), ns),
        ),
        "metadata": json_string(record.metadata),
        "categories": json_string(list(record.categories)),
        "sources": provenance(record),
        **attributes(**optional),
    }
    return attrs, [name for name, given in optional.items() if given is None]


def memory_item(record: MemoryRecord, vector: Vectors, seq: int, ns: str = "") -> Item:
    attrs, _ = record_attributes(record, ordered_sk(record.created_at, seq), ns)
    pk = memory_pk(record.id, ns)
    return {**key(pk, MEMORY_SK), **attrs, "vec": value(vector_bytes(vector)), **namespace_entry(pk)}


def record_of(item: Item) -> MemoryRecord:
    return MemoryRecord(
        id=text(item, "id"),
        text=text(item, "text"),
        hash=text(item, "hash"),
        scope=Scope(
            user_id=text_or_none(item, "user_id"),
            agent_id=text_or_none(item, "agent_id"),
            run_id=text_or_none(item, "run_id"),
            app_id=text_or_none(item, "app_id"),
        ),
        created_at=moment_of(item, "created_at"),
        updated_at=moment_of(item, "updated_at"),
        metadata=json_of(item, "metadata"),
        categories=tuple(json_of(item, "categories")),
        actor_id=text_or_none(item, "actor_id"),
        role=text_or_none(item, "role"),
        attributed_to=text_or_none(item, "attributed_to"),
        expiration_date=date_or_none(text_or_none(item, "expiration_date")),
        state=LifecycleState(text(item, "state")),
        replaced_by=text_or_none(item, "replaced_by"),
        **provenance_of(item),
    )


def provenance(record: MemoryRecord) -> Item:
    """The `sources` attribute: the messages the memory came from (a JSON list); for a memory drawn from other
    memories (Dream's synthesis), or an immutable one, an object `{"messages", "memories", "synthesized",
    "immutable"}`. Kept in the one attribute the indexes already project, so that a table made by an earlier version
    needs no new projection."""
    messages = [s.as_dict() for s in record.sources]
    if not record.synthesized and not record.derived_from and not record.immutable:
        return json_string(messages)
    return json_string(
        {
            "messages": messages,
            "memories": list(record.derived_from),
            "synthesized": record.synthesized,
            "immutable": record.immutable,
        }
    )


def provenance_of(item: Item) -> dict[str, Any]:
    raw = json_of(item, "sources")
    if isinstance(raw, list):
        return {"sources": tuple(SourceMessage.from_dict(s) for s in raw)}
    return {
        "sources": tuple(SourceMessage.from_dict(s) for s in raw.get("messages", [])),
        "derived_from": tuple(str(m) for m in raw.get("memories", [])),
        "synthesized": bool(raw.get("synthesized")),
        "immutable": bool(raw.get("immutable")),
    }


def links_attribute(links: list[str]) -> Item:
    """`links`: the memories of the same insert that cite one of this memory's messages (JSON text; absent when
    none): whose sources a delete of this one redacts (mnemo.domain.provenance)."""
    return {"links": json_string(links)} if links else {}


def links_of(item: Item) -> list[str]:
    return [str(i) for i in json_of(item, "links")] if "links" in item else []


# ---- history ------------------------------------------------------------------------------------------


def history_item(entry: HistoryEntry, seq: int, ns: str = "") -> Item:
    """Kept in the memory's partition, in the order they were written (a `timestamp` update may move the
    memory's created_at, never its history); deleting the memory item leaves them."""
    pk = memory_pk(entry.memory_id, ns)
    sk = HISTORY_PREFIX + ordered_sk(entry.updated_at, seq, entry.id)
    return {**key(pk, sk), **as_attributes(entry), **namespace_entry(pk)}


def without_texts(item: Item) -> Item:
    """A history entry's item as kept once its memory is deleted: no `old_memory`, no `new_memory`."""
    return {name: value for name, value in item.items() if name not in ("old_memory", "new_memory")}


def history_of(item: Item) -> HistoryEntry:
    return from_item(HistoryEntry, item)


# ---- claims, entities, settings ----------------------------------------------------------------------


def claim_key(claim: str) -> Item:
    return key(claim, HASH_SK)


def claim_item(claim: str, memory_id: str) -> Item:
    return {**claim_key(claim), **attributes(memory_id=memory_id), **namespace_entry(claim)}


def entity_identity(kind: EntityType, entity_id: str, ns: str = "") -> Item:
    return {
        **attributes(
            entity_type=kind, entity_id=entity_id, ent_pk=entity_partition(kind, shard_of(entity_id, ENTITY_SHARDS), ns)
        ),
        **namespace_entry(text(entity_key(kind, entity_id, ns), "pk")),
    }


def setting_item(name: str, setting: Any, updated_at: datetime, ns: str = "") -> Item:
    item_key = setting_key(name, ns)
    entry = namespace_entry(text(item_key, "pk"))
    return {**item_key, "value": json_string(setting, ensure_ascii=True), **attributes(updated_at=updated_at), **entry}
