"""The index's snapshot on disk: what a restart needs to serve at once, without reading every record.

A `load()` of a large store reads every record, computes each one's facets and quantizes its vector, which takes a
long while (bench/memory_index.md). So when the storage closes, the index writes what it holds to a directory beside
the SQLite file (`<file>.index/`): the int8 codes and scales, keys, ids, partitions, the hot fields of each row (numpy
files, the codes memory-mapped when read back: a partition's pages are read when it is searched), the approximate
index, and the *generation* of the memories it reflects.

The generation is a counter in the SQLite file that triggers on the `memories` table advance in the same
transaction as every insert, update and delete, whoever writes. The index notes the generation after each of its own
writes (a memory's record is written before its index entry), and the snapshot carries the last one it noted: a
record changed without the index after that (a tool, a crash between the two writes) leaves the file's generation
ahead. A snapshot is used only when its generation, its width and the keyword table's last row equal the file's;
otherwise the index is rebuilt from the records. It is deleted as soon as it has been read: the index moves away from
it with the first write, a crash then leaves no snapshot behind (the next start rebuilds), and the vectors and facets
of a memory deleted later never stay in a side file (README: deletes erase).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.sqlite.database import Database

VERSION = 1
GENERATION_SCHEMA = """
CREATE TABLE IF NOT EXISTS memory_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT OR IGNORE INTO memory_generation (id, n) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS memories_generation_insert AFTER INSERT ON memories
BEGIN UPDATE memory_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS memories_generation_update AFTER UPDATE ON memories
BEGIN UPDATE memory_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER IF NOT EXISTS memories_generation_delete AFTER DELETE ON memories
BEGIN UPDATE memory_generation SET n = n + 1 WHERE id = 1; END;
"""


@dataclass(frozen=True, slots=True)
class Mark:
    """Where the file stands: what a snapshot must have been written at to be used."""

    generation: int
    last_keyword_row: int
    dimension: int


@dataclass(slots=True)
class Snapshot:
    """The index's rows, grouped by partition (`users[i]` holds `counts[i]` consecutive rows)."""

    mark: Mark
    next_key: int
    users: list[str | None]
    counts: list[int]
    ids: list[str]
    keys: np.ndarray
    codes: np.ndarray | list[np.ndarray]  # written a partition at a time; read back as one memory-mapped array
    scales: np.ndarray
    hot_table: list[tuple[Any, ...]]
    hot_rows: np.ndarray
    approximate: Path | None  # the approximate index's file, when it had one
    approximate_trained_on: int = 0
    facets_version: str | None = None  # the version of the rules that read the rows' facets (None: unknown)


@contextmanager
def locked(directory: Path | None) -> Iterator[None]:
    """The snapshot held by this process alone (an exclusive lock on `<directory>.lock`), for a load or a write: the
    processes serving one file load and write one at a time. Nothing without a directory, or without fcntl."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: one process serves a file there
        yield
        return
    if directory is None:
        yield
        return
    fd = os.open(directory.with_name(directory.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)  # the owner's alone, whatever the umask (an empty file, but in the private data dir)
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing it releases the lock


def track_generation(db: Database) -> None:
    """The generation counter and its triggers (idempotent; the memories table must exist)."""
    db.executescript(GENERATION_SCHEMA)


def generation_of(db: Database) -> int:
    row = db.read().execute("SELECT n FROM memory_generation WHERE id = 1").fetchone()
    return int(row[0]) if row else -1


def mark_of(db: Database, dimension: int, generation: int | None = None) -> Mark:
    """Where the file stands now, or, with `generation`, where it stood for an index that saw that generation
    last (its keyword table is its own, so its last row is always now's)."""
    last = db.read().execute("SELECT max(rowid) FROM memory_fts").fetchone()
    return Mark(generation_of(db) if generation is None else generation, int(last[0] or 0), dimension)


def write(directory: Path, snapshot: Snapshot, save_approximate: Any) -> None:
    """The snapshot written to a temporary directory, then put in place of `directory` (a reader never sees half)."""
    temporary = directory.with_name(directory.name + ".tmp")
    remove(temporary)
    temporary.mkdir(parents=True)
    np.save(temporary / "keys.npy", snapshot.keys)
    _save_rows(temporary / "codes.npy", snapshot.codes)
    np.save(temporary / "scales.npy", snapshot.scales)
    np.save(temporary / "hot_rows.npy", snapshot.hot_rows)
    (temporary / "ids.json").write_text(json.dumps(snapshot.ids))
    if save_approximate is not None:
        save_approximate(temporary / "approximate.faiss")
    manifest = {
        "version": VERSION,
        "generation": snapshot.mark.generation,
        "last_keyword_row": snapshot.mark.last_keyword_row,
        "dimension": snapshot.mark.dimension,
        "next_key": snapshot.next_key,
        "users": snapshot.users,
        "counts": snapshot.counts,
        "hot_table": [[_encoded(v) for v in row] for row in snapshot.hot_table],
        "approximate_trained_on": snapshot.approximate_trained_on if save_approximate is not None else 0,
        "facets_version": snapshot.facets_version,
    }
    (temporary / "manifest.json").write_text(json.dumps(manifest))
    remove(directory)
    temporary.rename(directory)


def _save_rows(path: Path, parts: np.ndarray | list[np.ndarray]) -> None:
    """An .npy file of these rows, written a part at a time (no copy of them all in memory)."""
    blocks = parts if isinstance(parts, list) else [parts]
    rows = sum(len(block) for block in blocks)
    width = blocks[0].shape[1] if blocks else 0
    dtype = blocks[0].dtype if blocks else np.dtype(np.int8)
    with path.open("wb") as handle:
        np.lib.format.write_array_header_1_0(
            handle, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": (rows, width)}
        )
        for block in blocks:
            handle.write(np.ascontiguousarray(block).tobytes())


def read(directory: Path, expected: Mark) -> Snapshot | None:
    """The snapshot in `directory` if it was written at `expected`; None when there is none or it does not match."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    mark = Mark(manifest.get("generation", -2), manifest.get("last_keyword_row", -2), manifest.get("dimension", -2))
    if manifest.get("version") != VERSION or mark != expected:
        return None
    try:
        snapshot = _loaded(directory, manifest, mark)
    except (OSError, ValueError, KeyError):
        return None
    return snapshot if _whole(snapshot) else None


def _loaded(directory: Path, manifest: dict[str, Any], mark: Mark) -> Snapshot:
    """The snapshot the files of `directory` hold, as its manifest describes them."""
    return Snapshot(
        mark=mark,
        next_key=int(manifest["next_key"]),
        users=manifest["users"],
        counts=[int(c) for c in manifest["counts"]],
        ids=json.loads((directory / "ids.json").read_text()),
        keys=np.load(directory / "keys.npy"),
        codes=np.load(directory / "codes.npy", mmap_mode="c"),
        scales=np.load(directory / "scales.npy"),
        hot_table=[tuple(_decoded(v) for v in row) for row in manifest["hot_table"]],
        hot_rows=np.load(directory / "hot_rows.npy"),
        approximate=directory / "approximate.faiss" if manifest.get("approximate_trained_on") else None,
        approximate_trained_on=int(manifest.get("approximate_trained_on", 0)),
        facets_version=manifest.get("facets_version"),
    )


def _whole(snapshot: Snapshot) -> bool:
    """Whether the snapshot's files agree on its rows (none cut short)."""
    rows = len(snapshot.ids)
    if not (sum(snapshot.counts) == rows == len(snapshot.keys) == len(snapshot.scales) == len(snapshot.hot_rows)):
        return False
    codes = snapshot.codes
    return isinstance(codes, np.ndarray) and codes.shape == (rows, snapshot.mark.dimension)


def remove(directory: Path) -> None:
    shutil.rmtree(directory, ignore_errors=True)


def _encoded(value: Any) -> Any:
    if isinstance(value, tuple):
        return {"list": list(value)}
    if isinstance(value, date):
        return {"date": value.isoformat()}
    return value


def _decoded(value: Any) -> Any:
    if isinstance(value, dict):
        if "list" in value:
            return tuple(value["list"])
        return date.fromisoformat(value["date"])
    return value
