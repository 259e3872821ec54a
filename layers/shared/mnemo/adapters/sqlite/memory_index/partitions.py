"""The index's rows in memory: one partition per user (and one for memories with no user), and where each key's row is.

A search scoped to users touches only their partitions' rows. A partition keeps its rows' int8 codes and scales
(.int8_vectors), keys, ids and hot fields (.row_documents) in dense arrays: a row taken out is replaced by the last
one, so that a scan never skips holes. A memory's key (its row in the keyword table, its id in the approximate index)
finds its row in two array lookups (`slot_part`, `slot_row`): the approximate index and the facets answer in keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from mnemo.adapters.sqlite.memory_index import int8_vectors
from mnemo.adapters.sqlite.memory_index.row_documents import Doc, DocumentSource, Interner, RowDoc
from mnemo.adapters.sqlite.memory_index.snapshot_files import Snapshot
from mnemo.domain.memory import MemoryRecord
from mnemo.ports.embedder import Vectors
from mnemo.ports.facets import FacetReader

Hot = tuple[Any, ...]  # a row's hot fields (.row_documents.HOT)
FIRST_SLOTS = 1024  # keys the slot arrays hold before they first grow


class Partition:
    """The rows of one user (or of memories with no user): int8 codes and scales, ids, keys and hot fields; the whole
    documents too when the index has no document source."""

    def __init__(self, number: int, user: str | None, dimension: int) -> None:
        self.number = number
        self.user = user
        self.codes = np.zeros((8, dimension), dtype=np.int8)
        self.scales = np.zeros(8, dtype=np.float32)
        self.keys = np.zeros(8, dtype=np.int64)
        self.ids: list[str] = []
        self.hot: list[Hot] = []
        self.cold: list[Doc] = []

    @classmethod
    def restored(
        cls, number: int, user: str | None, codes: np.ndarray, scales: np.ndarray, keys: np.ndarray, ids: list[str]
    ) -> Partition:
        """A partition of a snapshot's rows (its codes may be a memory-mapped view: copied when the partition
        grows)."""
        part = cls.__new__(cls)
        part.number, part.user = number, user
        part.codes, part.scales, part.keys = codes, scales, keys
        part.ids = ids
        part.hot = []
        part.cold = []
        return part

    def __len__(self) -> int:
        return len(self.ids)

    def append(self, memory_id: str, key: int, hot: Hot, cold: Doc | None, code: Any, scale: float) -> int:
        row = len(self.ids)
        if row == len(self.codes):
            self.codes = _grown(self.codes)
            self.scales = _grown(self.scales)
            self.keys = _grown(self.keys)
        self.codes[row] = code
        self.scales[row] = scale
        self.keys[row] = key
        self.ids.append(memory_id)
        self.hot.append(hot)
        if cold is not None:
            self.cold.append(cold)
        return row

    def remove(self, row: int) -> int | None:
        """Remove a row by moving the last row into its place; returns the key of the row that moved, if any."""
        last = len(self.ids) - 1
        moved = None
        if row != last:
            self.codes[row] = self.codes[last]
            self.scales[row] = self.scales[last]
            self.keys[row] = self.keys[last]
            self.ids[row] = self.ids[last]
            self.hot[row] = self.hot[last]
            if self.cold:
                self.cold[row] = self.cold[last]
            moved = int(self.keys[row])
        self.ids.pop()
        self.hot.pop()
        if self.cold:
            self.cold.pop()
        return moved

    def doc(self, row: int, source: DocumentSource | None) -> RowDoc:
        memory_id = self.ids[row]
        cold: Any = self.cold[row] if self.cold else (lambda: source(memory_id) if source else None)
        return RowDoc(memory_id, self.user, self.hot[row], cold)

    def scores(self, query: Vectors) -> np.ndarray:
        count = len(self.ids)
        return int8_vectors.scores(self.codes[:count], self.scales[:count], query)

    def vectors(self, start: int, end: int) -> np.ndarray:
        return int8_vectors.dequantize(self.codes[start:end], self.scales[start:end])


class Partitions:
    """Every row the index holds: the partitions by user and by number, each memory's key, and each key's row.

    `keys` (memory id -> key) is filled by the writers before they add a memory's row (a key stays assigned while the
    row is replaced); `slot_part` and `slot_row` give the partition number (-1: none) and the row of each key."""

    def __init__(self, dimension: int, documents: DocumentSource | None, facets: FacetReader) -> None:
        self.dimension = dimension
        self.documents = documents
        self.facets = facets
        self.by_user: dict[str | None, Partition] = {}
        self.numbered: list[Partition | None] = []
        self.keys: dict[str, int] = {}
        self.slot_part = np.full(FIRST_SLOTS, -1, dtype=np.int32)
        self.slot_row = np.zeros(FIRST_SLOTS, dtype=np.int32)
        self._interner = Interner()

    def live(self) -> list[Partition]:
        return [part for part in self.numbered if part is not None]

    def scoped(self, users: set[str] | None) -> list[Partition] | None:
        """The partitions of these users (None: no scope, every partition)."""
        if users is None:
            return None
        return [self.by_user[user] for user in users if user in self.by_user]

    def doc(self, memory_id: str) -> RowDoc:
        key = self.keys[memory_id]
        part = self.numbered[int(self.slot_part[key])]
        assert part is not None
        return part.doc(int(self.slot_row[key]), self.documents)

    def similarity(self, memory_id: str, query: Vectors) -> float:
        """The int8 cosine of the query with this memory's row."""
        key = self.keys[memory_id]
        part = self.numbered[int(self.slot_part[key])]
        assert part is not None
        row = int(self.slot_row[key])
        return float(part.codes[row].astype(np.float32) @ query * part.scales[row])

    def add(
        self, records: Sequence[MemoryRecord], codes: np.ndarray, scales: np.ndarray, keys: Sequence[int]
    ) -> list[Hot]:
        """The rows of these records, under these keys, appended to their users' partitions; their hot fields."""
        if keys:
            self.ensure_slots(max(keys))
        keep_documents = self.documents is None
        hots = []
        for record, key, code, scale in zip(records, keys, codes, scales, strict=True):
            user = record.scope.user_id
            part = self.by_user.get(user)
            if part is None:
                part = self.by_user[user] = Partition(len(self.numbered), user, self.dimension)
                self.numbered.append(part)
            doc = record.index_document(self.facets.facets(record.text))
            hot = self._interner.hot(doc)
            row = part.append(record.id, key, hot, doc if keep_documents else None, code, scale)
            self.slot_part[key] = part.number
            self.slot_row[key] = row
            hots.append(hot)
        return hots

    def detach(self, keys: Iterable[int]) -> list[tuple[int, Hot]]:
        """The rows of these keys taken out of their partitions (their keys stay assigned); each key taken out, with
        its row's hot fields."""
        detached = []
        for key in keys:
            number = int(self.slot_part[key])
            if number < 0:
                continue
            part = self.numbered[number]
            assert part is not None
            row = int(self.slot_row[key])
            detached.append((key, part.hot[row]))
            moved = part.remove(row)
            if moved is not None:
                self.slot_row[moved] = row
            self.slot_part[key] = -1
            if not part:
                del self.by_user[part.user]
                self.numbered[number] = None
        return detached

    def hot_of(self, doc: Doc) -> Hot:
        """A memory's hot fields as a row keeps them (read from its index document)."""
        return self._interner.hot(doc)

    def reset(self) -> None:
        self.by_user.clear()
        self.numbered.clear()
        self.keys.clear()
        self.slot_part[:] = -1

    def restore(self, snapshot: Snapshot) -> list[Hot]:
        """The snapshot's rows as the partitions (which hold none before); every row's hot fields, row for row."""
        self.dimension = snapshot.mark.dimension
        if len(snapshot.keys):
            self.ensure_slots(int(snapshot.keys.max()))
        self.keys.update(zip(snapshot.ids, snapshot.keys.tolist(), strict=True))
        hot = [snapshot.hot_table[at] for at in snapshot.hot_rows.tolist()]
        codes = snapshot.codes
        assert isinstance(codes, np.ndarray)  # read back as one (memory-mapped) array
        start = 0
        for user, count in zip(snapshot.users, snapshot.counts, strict=True):
            end = start + count
            keys = np.array(snapshot.keys[start:end])
            part = Partition.restored(
                len(self.numbered),
                user,
                codes[start:end].view(np.ndarray),  # no memmap subclass overhead per row
                np.array(snapshot.scales[start:end]),
                keys,
                snapshot.ids[start:end],
            )
            part.hot = hot[start:end]
            self.by_user[user] = part
            self.numbered.append(part)
            self.slot_part[keys] = part.number
            self.slot_row[keys] = np.arange(count, dtype=np.int32)
            start = end
        return hot

    def ensure_slots(self, key: int) -> None:
        """The slot arrays grown to hold this key."""
        size = len(self.slot_part)
        if key < size:
            return
        while size <= key:
            size *= 2
        part = np.full(size, -1, dtype=np.int32)
        part[: len(self.slot_part)] = self.slot_part
        row = np.zeros(size, dtype=np.int32)
        row[: len(self.slot_row)] = self.slot_row
        self.slot_part, self.slot_row = part, row


def _grown(array: np.ndarray) -> np.ndarray:
    grown = np.zeros((len(array) * 2, *array.shape[1:]), dtype=array.dtype)
    grown[: len(array)] = array
    return grown
