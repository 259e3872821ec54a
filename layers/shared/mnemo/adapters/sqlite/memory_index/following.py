"""The index's side of the file's change log (mnemo.adapters.sqlite.change_log): the keys it gives, the changes it
logs, and the other processes' changes it applies to what it holds in memory.

Every index writes its changes to `index_log`, in the transaction that writes their keyword rows, and takes its keys
from the file's one counter (`index_keys`), so that two processes never give two memories one key. Before a read,
and inside each of its write transactions, an index applies the log's rows it has not seen, but its own: a memory
another process indexed is read from the records (with its stored embedding) and indexed under the same key, a memory
it took out is taken out. An index that fell further behind than the log keeps is loaded again from the records.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from mnemo.adapters.sqlite import change_log
from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index.records import IndexedRecords
from mnemo.adapters.sqlite.memory_index.rows import IndexRows

Change = tuple[str, int | None]  # a memory id and its key (None: taken out)


class IndexLog:
    """Where this index stands in `index_log`, the next key it may give, and the memories another process indexed
    whose records were gone when this one read them (`orphans`: the keyword row this process deletes if it is the
    one taking them out)."""

    def __init__(self, db: Database) -> None:
        db.executescript(change_log.INDEX_LOG_SCHEMA)
        self._watch = change_log.Watch(db)
        self.seen = change_log.last_seq(db.read(), "index_log")  # the last log row this index reflects
        self._pruning = change_log.Pruning("index_log")
        self._me = change_log.writer_token()
        self.orphans: dict[str, int] = {}
        self.next_key = 1

    def moved(self) -> bool:
        """Whether any other connection committed since the last look (cheap when none did)."""
        return self._watch.moved()

    def restart(self, conn: sqlite3.Connection) -> None:
        """The log's last row taken as seen: the index is about to be filled from the records."""
        self.seen = change_log.last_seq(conn, "index_log")

    def reset(self) -> None:
        self.orphans.clear()
        self.next_key = 1

    def allocate(self, conn: sqlite3.Connection, count: int) -> list[int]:
        """`count` keys no process has given, from the file's counter (inside a write transaction)."""
        stored = int(conn.execute("SELECT next_key FROM index_keys WHERE id = 0").fetchone()[0])
        start = max(stored, self.next_key)
        self.next_key = start + count
        conn.execute("UPDATE index_keys SET next_key = ? WHERE id = 0", (self.next_key,))
        return list(range(start, start + count))

    def write(self, conn: sqlite3.Connection, changes: Sequence[Change]) -> None:
        """This process's changes in the index log (in the transaction that writes their keyword rows)."""
        if not changes:
            return
        me = self._me
        conn.executemany(
            "INSERT INTO index_log (memory_id, key, writer) VALUES (?, ?, ?)", [(i, k, me) for i, k in changes]
        )
        self._pruning.wrote(conn, len(changes))

    def follow(
        self,
        conn: sqlite3.Connection,
        rows: IndexRows,
        records: IndexedRecords | None,
        reload: Callable[[], None],
    ) -> None:
        """The log's rows after the last this index reflects, applied to `rows` (other processes wrote their keyword
        rows; this one's own changes are in memory already); `reload` when some were pruned before this index read
        them. Called with the index lock held."""
        unseen = conn.execute(
            "SELECT seq, memory_id, key, writer FROM index_log WHERE seq > ? ORDER BY seq", (self.seen,)
        ).fetchall()
        if not unseen:
            return
        if records is None:  # an index alone: nothing to read other processes' memories from
            self.seen = unseen[-1][0]
            return
        if change_log.missed(conn, "index_log", self.seen, unseen[0][0]):
            reload()
            return
        self._apply(unseen, rows, records)

    def _apply(self, unseen: list[Any], rows: IndexRows, records: IndexedRecords) -> None:
        """These log rows applied to `rows`: the last change of each memory another process made."""
        latest, reset = self._latest(unseen)
        if reset:
            rows.reset()
            self.reset()
            rows.removed = True
        self.seen = unseen[-1][0]
        foreign = {memory_id: key for memory_id, (key, own) in latest.items() if not own}
        rows.remove([memory_id for memory_id, key in foreign.items() if key is None])
        for memory_id in foreign:
            self.orphans.pop(memory_id, None)
        wanted = {memory_id: key for memory_id, key in foreign.items() if key is not None}
        if wanted:
            self._index(wanted, rows, records)
        # The generation the index reflects stays that of its own last write: a record another process wrote may
        # not have its index row yet, so a snapshot written now would be used without it (close() writes none).

    def _latest(self, unseen: list[Any]) -> tuple[dict[str, tuple[int | None, bool]], bool]:
        """Each memory's last key in these log rows (None: removed) and whether this index wrote it; and whether
        another process took every memory out (what came before that is moot)."""
        latest: dict[str, tuple[int | None, bool]] = {}
        reset = False
        for _seq, memory_id, key, writer in unseen:
            if memory_id == change_log.EVERYTHING:
                latest.clear()
                reset = reset or writer != self._me
                continue
            latest[memory_id] = (key, writer == self._me)
        return latest, reset

    def _index(self, wanted: dict[str, int], rows: IndexRows, records: IndexedRecords) -> None:
        """The memories another process indexed, under its keys, read from the records."""
        found, vectors = records.records(list(wanted))
        # A memory whose record is gone again is taken out by a later row of the log, or by this process.
        self.orphans.update((i, wanted[i]) for i in wanted.keys() - {r.id for r in found})
        keys = [wanted[r.id] for r in found]
        known = rows.partitions.keys
        replaced = [key for r in found if (key := known.get(r.id)) is not None]
        known.update((r.id, wanted[r.id]) for r in found)
        self.next_key = max([self.next_key, *(key + 1 for key in keys)])
        if found:
            rows.upsert(found, vectors, keys, replaced)
