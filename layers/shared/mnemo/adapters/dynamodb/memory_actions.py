"""The transactions of the DynamoDB memory store's writes: the actions that update, delete or claim a memory on the
condition that it is as the store read it, and the packing of actions into transactions DynamoDB takes (at most 100
actions and 4 MB), a memory never split from its claim, history and events."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, placeholders
from mnemo.adapters.dynamodb.operations import MAX_TRANSACTION, item_size
from mnemo.domain.memory import HistoryEntry, MemoryRecord

TRANSACTION_BYTES = 3_500_000  # a TransactWriteItems holds 4 MB at most
KEPT_VECTOR_BYTES = 12_288  # what an update that keeps the embedding counts for it: 3,072 float32 dimensions
MAX_RETRIES = 5  # transactions lost to a concurrent change of the same memories before giving up

Action = dict[str, Any]
# The actions of one memory (its put, claim, history and events; or an orphan history entry's put, without a record).
Group = tuple[list[Action], MemoryRecord | None]


def by_memory(history: Iterable[HistoryEntry]) -> dict[str, list[HistoryEntry]]:
    entries: dict[str, list[HistoryEntry]] = {}
    for entry in history:
        entries.setdefault(entry.memory_id, []).append(entry)
    return entries


def update_memory(table: str, item_key: Item, attrs: Item, absent: list[str], claim: str | None) -> Action:
    """SET the attributes, REMOVE the absent ones, on condition that the memory exists and still holds `claim`."""
    names = {f"#a{i}": name for i, name in enumerate(attrs)}
    values = {f":v{i}": value for i, value in enumerate(attrs.values())}
    removed = {f"#r{i}": name for i, name in enumerate(absent)}
    expression = "SET " + ", ".join(f"{n} = {v}" for n, v in zip(names, values, strict=True))
    if removed:
        expression += " REMOVE " + ", ".join(removed)
    condition = "attribute_exists(pk) AND "
    if claim is None:
        condition += "attribute_not_exists(#guard)"
    else:
        condition += "#guard = :guard"
        values |= placeholders(guard=claim)
    return {
        "Update": {
            "TableName": table,
            "Key": item_key,
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {**names, **removed, "#guard": "guard"},
            "ExpressionAttributeValues": values,
        }
    }


def take_claim(table: str, claim: str, memory_id: str) -> Action:
    """The Put of a dedup claim, on condition that no other memory holds it."""
    return {
        "Put": {
            "TableName": table,
            "Item": it.claim_item(claim, memory_id),
            "ConditionExpression": "attribute_not_exists(pk) OR memory_id = :me",
            "ExpressionAttributeValues": placeholders(me=memory_id),
        }
    }


def delete_memory(table: str, item_key: Item, claim: str | None) -> Action:
    """The Delete of a memory, on condition that it exists and still holds `claim` (or none)."""
    request: dict[str, Any] = {"TableName": table, "Key": item_key, "ExpressionAttributeNames": {"#guard": "guard"}}
    if claim is None:
        request["ConditionExpression"] = "attribute_exists(pk) AND attribute_not_exists(#guard)"
    else:
        request["ConditionExpression"] = "attribute_exists(pk) AND #guard = :guard"
        request["ExpressionAttributeValues"] = placeholders(guard=claim)
    return {"Delete": request}


def history_bytes(entry: HistoryEntry) -> int:
    """About what a history entry's item weighs: its texts, and a kilobyte for the rest."""
    return len((entry.old_memory or "").encode("utf-8")) + len((entry.new_memory or "").encode("utf-8")) + 1024


def chunks(groups: list[Group]) -> Iterator[list[Group]]:
    """Whole groups (a memory with its claim and history) packed into transactions of at most 100 actions and
    TRANSACTION_BYTES (memories that each keep a long conversation as their sources add up quickly)."""
    chunk: list[Group] = []
    actions = size = 0
    for group in groups:
        weight = sum(item_size(a["Put"]["Item"]) for a in group[0] if "Put" in a)
        if chunk and (actions + len(group[0]) > MAX_TRANSACTION or size + weight > TRANSACTION_BYTES):
            yield chunk
            chunk, actions, size = [], 0, 0
        chunk.append(group)
        actions += len(group[0])
        size += weight
    if chunk:
        yield chunk
