"""The item codec every DynamoDB store shares: keys, attribute values (strings, numbers, moments, optional
attributes, JSON text, compressed JSON, TTLs) and the write order that sorts records made in the same moment.

Items are in the low-level client's attribute-value form: `{"name": {"S": "text"}}`.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from datetime import datetime
from typing import Any

from mnemo.domain.timefmt import from_iso, iso

Item = dict[str, dict[str, Any]]

# JSON longer than this is stored zlib-compressed, as `<name>_z` (binary): see json_attribute.
INLINE_JSON_BYTES = 16 * 1024


def key(pk: str, sk: str) -> Item:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def key_of(item: Item) -> Item:
    """The key of a stored item (what a delete or a get names)."""
    return {"pk": item["pk"], "sk": item["sk"]}


def shard_of(text: str, shards: int) -> int:
    """Which of `shards` partitions a sharded key of `text` falls in: CRC-32, stable across processes."""
    return zlib.crc32(text.encode("utf-8")) % shards


# ---- values -------------------------------------------------------------------------------------------------


def string(value: str) -> dict[str, Any]:
    return {"S": value}


def number(value: int) -> dict[str, Any]:
    return {"N": str(value)}


def moment(value: datetime) -> dict[str, Any]:
    """A moment as fixed-width ISO text (UTC, microseconds): such values sort as the moments do."""
    return {"S": iso(value)}


def optional(**values: str | datetime | None) -> Item:
    """The attributes whose value is not None (a moment as ISO text); an absent attribute stands for None."""
    return {name: {"S": iso(v) if isinstance(v, datetime) else v} for name, v in values.items() if v is not None}


def text_or_none(item: Item, name: str) -> str | None:
    value = item.get(name)
    return None if value is None else str(value["S"])


def moment_of(item: Item, name: str) -> datetime:
    return from_iso(item[name]["S"])


def moment_or_none(item: Item, name: str) -> datetime | None:
    text = text_or_none(item, name)
    return from_iso(text) if text else None


def expiry(at: datetime) -> dict[str, Any]:
    """A TTL attribute's value: epoch seconds, rounded up (DynamoDB deletes the item some time after)."""
    return {"N": str(int(at.timestamp()) + 1)}


# ---- JSON ---------------------------------------------------------------------------------------------------


def json_string(value: Any, *, ensure_ascii: bool = False) -> dict[str, Any]:
    return {"S": json.dumps(value, ensure_ascii=ensure_ascii)}


def json_of(item: Item, name: str) -> Any:
    return json.loads(item[name]["S"])


def _packed(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 6)


def packed_json(value: Any) -> bytes:
    """The value as zlib-compressed JSON text."""
    return _packed(json.dumps(value, ensure_ascii=False))


def unpacked_json(data: bytes) -> Any:
    return json.loads(zlib.decompress(data))


def json_attribute(name: str, value: Any) -> Item:
    """The value as JSON text, or beyond INLINE_JSON_BYTES compressed as `<name>_z` (so a large value fits an
    item); json_value reads either."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= INLINE_JSON_BYTES:
        return {name: {"S": text}}
    return {f"{name}_z": {"B": _packed(text)}}


def json_value(item: Item, name: str) -> Any:
    packed = item.get(f"{name}_z")
    if packed is not None:
        return unpacked_json(bytes(packed["B"]))
    return json_of(item, name)


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
