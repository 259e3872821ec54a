"""A delete of the DynamoDB memory store, which erases: the texts of the memories' history first, then per
transaction the memories with their claims, their DELETE history (no text) and delete events, then the messages the
siblings of an insert share with them redacted and the unpublished outbox events scrubbed. See "Writes and races"
(remove) in README.md beside this file."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from mnemo.adapters.dynamodb import items as it
from mnemo.adapters.dynamodb.attributes import Item, text, text_or_none
from mnemo.adapters.dynamodb.memory_actions import (
    MAX_RETRIES,
    TRANSACTION_BYTES,
    Action,
    Group,
    by_memory,
    chunks,
    delete_memory,
    history_bytes,
)
from mnemo.adapters.dynamodb.memory_table import MemoryTable
from mnemo.adapters.dynamodb.operations import MAX_TRANSACTION, TransactionCancelledError
from mnemo.adapters.dynamodb.schema import RECORD_ATTRIBUTES, STATE_ATTRIBUTES
from mnemo.domain.erasure import Erasure, redacted_sources, textless
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord


class MemoryRemoval(MemoryTable):
    def remove(self, memory_ids: Sequence[str], history: Sequence[HistoryEntry]) -> list[str]:
        """Delete memories (with their claims) and append their history without texts, in transactions of up to
        100 actions (each memory with its claim and history entries in one of them); the texts of their earlier
        history entries are erased first (so that a failure never leaves the text of a memory already deleted),
        then their siblings' sources are redacted and their unpublished outbox events scrubbed. The texts their
        history held."""
        unique = list(dict.fromkeys(memory_ids))
        said = self._erase_history(unique)
        entries = by_memory(textless(entry) for entry in history)
        removed: dict[str, Item] = {}
        for chunk in self._transactions_of(unique, entries):
            removed.update(self._remove_chunk(chunk, {i: entries.pop(i, []) for i in chunk}))
        self._append_history([h for hs in entries.values() for h in hs])
        self._erase_beyond(removed, Erasure.of((it.record_of(item) for item in removed.values()), said))
        return said

    def _erase_beyond(self, removed: dict[str, Item], erasure: Erasure) -> None:
        """What else held the removed memories' texts: the sources of the memories their `links` name, and the
        outbox's unpublished events."""
        linked = {i for item in removed.values() for i in it.links_of(item)} - removed.keys()
        self._redact_siblings(sorted(linked), erasure)
        if self._outbox is not None and erasure:
            self._outbox.scrub(erasure)

    def purge(self) -> None:
        """Nothing lingers to purge: a deleted item is gone from the table (backups and point-in-time recovery
        keep their copies until they expire: see the README)."""

    def _transactions_of(self, memory_ids: list[str], entries: dict[str, list[HistoryEntry]]) -> Iterator[list[str]]:
        """The memories, as many to a transaction as fit its 100 actions and TRANSACTION_BYTES."""
        chunk: list[str] = []
        size = weight = 0
        for memory_id in memory_ids:
            cost, heft = self._removal_cost(entries.get(memory_id, []))
            if chunk and (size + cost > MAX_TRANSACTION or weight + heft > TRANSACTION_BYTES):
                yield chunk
                chunk, size, weight = [], 0, 0
            chunk.append(memory_id)
            size += cost
            weight += heft
        if chunk:
            yield chunk

    def _removal_cost(self, own: list[HistoryEntry]) -> tuple[int, int]:
        """The actions and about the bytes one memory's delete takes: its delete, its claim's release, its history
        entries, and with the outbox a delete event per DELETE entry (about as heavy as the entry)."""
        cost = 2 + len(own)
        heft = sum(history_bytes(h) for h in own)
        if self._outbox is not None:
            deletes = [h for h in own if h.event is Event.DELETE]
            cost += len(deletes)
            heft += sum(history_bytes(h) for h in deletes)
        return cost, heft

    def _append_history(self, entries: list[HistoryEntry]) -> None:
        """History entries of memories not among those deleted, in transactions of their own."""
        leftovers: list[Group] = [
            ([self._ops.put(it.history_item(h, self._seq.next(), ns=self._ns))], None) for h in entries
        ]
        for part in chunks(leftovers):
            self._ops.transact([action for group, _ in part for action in group])

    def _erase_history(self, memory_ids: Sequence[str]) -> list[str]:
        """Every history entry of the memories rewritten without its texts (a Query of each memory's partition,
        eight at a time; BatchWriteItem puts of the entries that held text). The texts they held."""

        def texts_of(memory_id: str) -> list[Item]:
            return [
                item
                for item in self._ops.partition(it.memory_pk(memory_id, ns=self._ns), it.HISTORY_PREFIX)
                if "old_memory" in item or "new_memory" in item
            ]

        if len(memory_ids) <= 2:
            found = [item for memory_id in memory_ids for item in texts_of(memory_id)]
        else:
            with ThreadPoolExecutor(max_workers=8) as pool:
                found = [item for items in pool.map(texts_of, memory_ids) for item in items]
        said = [text(item, name) for item in found for name in ("old_memory", "new_memory") if name in item]
        self._ops.batch_write([{"PutRequest": {"Item": it.without_texts(item)}} for item in found])
        return list(dict.fromkeys(said))

    def _redact_siblings(self, sibling_ids: Sequence[str], erasure: Erasure) -> None:
        """The siblings' source messages that hold an erased text, redacted, and their links to the erased
        memories dropped (each an UpdateItem on condition that the sibling still exists)."""
        if not sibling_ids:
            return
        keys = [it.memory_key(i, ns=self._ns) for i in sibling_ids]
        for item in self._ops.batch_get(keys, (*RECORD_ATTRIBUTES, "links")):
            record = it.record_of(item)
            sources = redacted_sources(record.sources, erasure) or record.sources
            links = [i for i in it.links_of(item) if i not in erasure.ids]
            values = {"sources": it.provenance(replace(record, sources=sources)), **it.links_attribute(links)}
            self._ops.set_if_exists(it.memory_key(record.id, ns=self._ns), values)

    def _remove_chunk(self, memory_ids: list[str], entries: dict[str, list[HistoryEntry]]) -> dict[str, Item]:
        """The memories' deletes, claims, history and (with the outbox) delete events, in one transaction; the
        items removed (as they were)."""
        for _attempt in range(MAX_RETRIES):
            keys = [it.memory_key(i, ns=self._ns) for i in memory_ids]
            current = {text(item, "id"): item for item in self._ops.batch_get(keys, (*STATE_ATTRIBUTES, "links"))}
            removed = [it.record_of(item) for item in current.values()]
            actions = self._removal_actions(memory_ids, entries, current, removed)
            if not actions:
                return {}
            try:
                self._ops.transact(actions)
            except TransactionCancelledError:
                continue  # one of them changed meanwhile: read again
            self._notify(any(self._is_event(a) for a in actions))
            self._entities.apply((r, -1) for r in removed if r.state is LifecycleState.ACTIVE)
            return current
        raise RuntimeError("Memories kept changing while being removed; giving up.")

    def _removal_actions(
        self,
        memory_ids: list[str],
        entries: dict[str, list[HistoryEntry]],
        current: dict[str, Item],
        removed: list[MemoryRecord],
    ) -> list[Action]:
        """Each memory's delete (on the claim it was read with) and its claim's release, its history entries, then
        the delete events of them all."""
        actions: list[Action] = []
        for memory_id in memory_ids:
            item = current.get(memory_id)
            if item is not None:
                claim = text_or_none(item, "guard")
                actions.append(delete_memory(self._ops.table, it.memory_key(memory_id, ns=self._ns), claim))
                if claim is not None:
                    actions.append(self._ops.release(it.claim_key(claim), "memory_id", memory_id))
            actions.extend(self._ops.put(it.history_item(h, self._seq.next(), ns=self._ns)) for h in entries[memory_id])
        history = [h for memory_id in memory_ids for h in entries[memory_id]]
        actions.extend(self._event_puts([], history, {r.id: r for r in removed}))
        return actions
