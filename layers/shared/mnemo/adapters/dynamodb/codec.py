"""What every DynamoDB store of the package encodes the same way beyond single values (attributes.py): keys, sharded
keys, JSON text and compressed JSON, TTLs, and the write order that sorts records made in the same moment.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from datetime import datetime
from typing import Any

from mnemo.adapters.dynamodb.attributes import AttributeValue, Item, binary, text, value
from mnemo.domain.timefmt import iso

# JSON longer than this is stored zlib-compressed, as `<name>_z` (binary): see json_attribute.
INLINE_JSON_BYTES = 16 * 1024


def key(pk: str, sk: str) -> Item:
    return {"pk": value(pk), "sk": value(sk)}


def key_of(item: Item) -> Item:
    """The key of a stored item (what a delete or a get names)."""
    return {"pk": item["pk"], "sk": item["sk"]}


def shard_of(text: str, shards: int) -> int:
    """Which of `shards` partitions a sharded key of `text` falls in: CRC-32, stable across processes."""
    return zlib.crc32(text.encode("utf-8")) % shards


def expiry(at: datetime) -> AttributeValue:
    """A TTL attribute's value: epoch seconds, rounded up (DynamoDB deletes the item some time after)."""
    return value(int(at.timestamp()) + 1)


# ---- JSON ---------------------------------------------------------------------------------------------------


def json_string(python: Any, *, ensure_ascii: bool = False) -> AttributeValue:
    return value(json.dumps(python, ensure_ascii=ensure_ascii))


def json_of(item: Item, name: str) -> Any:
    return json.loads(text(item, name))


def _packed(json_text: str) -> bytes:
    return zlib.compress(json_text.encode("utf-8"), 6)


def packed_json(python: Any) -> bytes:
    """The value as zlib-compressed JSON text."""
    return _packed(json.dumps(python, ensure_ascii=False))


def unpacked_json(data: bytes) -> Any:
    return json.loads(zlib.decompress(data))


def json_attribute(name: str, python: Any) -> Item:
    """The value as JSON text, or beyond INLINE_JSON_BYTES compressed as `<name>_z` (so a large value fits an
    item); json_value reads either."""
    json_text = json.dumps(python, ensure_ascii=False)
    if len(json_text) <= INLINE_JSON_BYTES:
        return {name: value(json_text)}
    return {f"{name}_z": value(_packed(json_text))}


def json_value(item: Item, name: str) -> Any:
    if f"{name}_z" in item:
        return unpacked_json(binary(item, f"{name}_z"))
    return json_of(item, name)


def json_or(item: Item, name: str, default: Any) -> Any:
    """json_value, or `default` when the item holds the attribute neither way."""
    return json_value(item, name) if name in item or f"{name}_z" in item else default


# ---- write order --------------------------------------------------------------------------------------------


class WriteOrder:
    """Numbers that order writes made in the same moment (SQLite's row id): nanoseconds since the epoch,
    strictly increasing within this process."""

    def __init__(self) -> None:
        self._last = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            self._last = max(time.time_ns(), self._last + 1)
            return self._last


def ordered_sk(at: datetime, seq: int, record_id: str | None = None) -> str:
    """`<at ISO>#<20-digit write order>[#<record id>]`: sorts by the moment, then by write order."""
    ordered = f"{iso(at)}#{seq:020d}"
    return ordered if record_id is None else f"{ordered}#{record_id}"


def seq_of(sk: str) -> int:
    """The write order of an ordered_sk made without a record id."""
    return int(sk.rsplit("#", 1)[1])
