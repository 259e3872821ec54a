"""Where a deleted text could survive, read raw: every file under a directory (the SQLite files, their -wal and -shm,
each project's namespace file, the stand-in for OpenSearch), and under moto every item of every DynamoDB table,
compressed attributes (`*_z`, zlib) unpacked. A sentinel is a word no text holds by chance; what is looked for is
its tail (FTS5 stores a term after the prefix it shares with the term before it, so the head may be elided)."""

from __future__ import annotations

import contextlib
import sqlite3
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import moto_aws
from tests.support.waits import seconds


@dataclass(frozen=True)
class Sentinel:
    word: str
    needle: str

    @classmethod
    def new(cls) -> Sentinel:
        tail = uuid.uuid4().hex
        return cls(f"zq7sentinel{tail}", tail)


def files_holding(root: Path, needle: str) -> list[str]:
    """The files under `root` whose bytes hold `needle` (as UTF-8)."""
    wanted = needle.encode()
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and wanted in p.read_bytes())


def settled_scan(scan: Callable[[], list[str]], timeout: float = 30.0) -> list[str]:
    """What `scan` finds once it finds nothing, or at `timeout` (scaled): a reader of an older snapshot may hold off
    a delete's checkpoint, which is then retried until done (the deleted text's old page image stays meanwhile)."""
    deadline = time.monotonic() + seconds(timeout)
    while (found := scan()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return found


def rows_holding(root: Path, needle: str) -> list[str]:
    """Where in the SQLite databases under `root` `needle` is (a failure's explanation): `<file> <table> <row>` of
    each row holding it, read through SQLite (so the WAL's committed pages count), or `<file> (in no row)` for a
    database whose bytes hold it only in freed pages or an old WAL frame."""
    wanted = needle.encode()
    found: list[str] = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.read_bytes()[:16] != b"SQLite format 3\x00":
            continue
        held = [f"{path.relative_to(root)} {row}" for row in _rows_holding(path, wanted)]
        if not held and any(wanted in p.read_bytes() for p in (path, path.with_name(path.name + "-wal")) if p.exists()):
            held = [f"{path.relative_to(root)} (in no row)"]
        found += held
    return found


def _rows_holding(path: Path, wanted: bytes) -> Iterator[str]:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            with contextlib.suppress(sqlite3.Error):  # a virtual table whose module is not loaded here
                for row in conn.execute(f'SELECT * FROM "{table}"'):
                    cells = [c if isinstance(c, bytes) else str(c).encode() for c in row]
                    if any(wanted in c for c in cells):
                        yield f"{table} {[c.decode('utf-8', 'replace')[:60] for c in cells]}"
    finally:
        conn.close()


def _unpacked(raw: bytes, name: str) -> str:
    """A binary attribute as text: zlib-unpacked when it is a compressed one (`*_z`, an export's part `data`)."""
    if name.endswith("_z") or name == "data":
        with contextlib.suppress(zlib.error):
            raw = zlib.decompress(raw)
    return raw.decode("utf-8", "replace")


def _values(value: dict[str, Any], name: str) -> Iterator[str]:
    """Every text an attribute value holds (binary ones decoded: unpacked when `*_z`, else as bytes)."""
    for kind, inner in value.items():
        if kind == "S":
            yield inner
        elif kind == "B":
            yield _unpacked(bytes(inner), name)
        elif kind == "SS":
            yield from inner
        elif kind == "L":
            for item in inner:
                yield from _values(item, name)
        elif kind == "M":
            for key, item in inner.items():
                yield from _values(item, key)


def items_holding(needle: str) -> list[str]:
    """Under moto: `<table>: <pk> <sk>` of every item of every table with an attribute holding `needle`."""
    client = moto_aws.client("dynamodb")
    found: list[str] = []
    for table in client.list_tables()["TableNames"]:
        request: dict[str, Any] = {"TableName": table}
        while True:
            page = client.scan(**request)
            for item in page.get("Items", []):
                if any(needle in text for name, value in item.items() for text in _values(value, name)):
                    found.append(f"{table}: {item.get('pk', {}).get('S')} {item.get('sk', {}).get('S')}")
            if "LastEvaluatedKey" not in page:
                break
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return found
