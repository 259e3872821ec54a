"""Without an LLM, the current fact wins: an active memory that a new statement likely makes out of date is kept
OUTDATED, replaced by whichever of the two was said later. What "likely out of date" means is read from the texts
by the language pack (mnemo.language: conflicting claims, a statement saying something changed, the parts of a
life that hold one state at a time); this module is the one place the add path asks it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope
from mnemo.language import ClaimReading
from mnemo.ports.embedder import Vectors
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import active_in

OUTDATE_CANDIDATES = 20  # the memories nearest a new statement whose claims it is compared with
CHANGE_SIMILARITY = 0.40  # chosen on bench/data/change_pairs.jsonl (bench/change_rule.py)
# The same for two statements of one part of a life that holds one state at a time (the language pack's life slots).
CHANGE_SIMILARITY_SAME_SLOT = 0.25


class Outdating:
    def __init__(self, parts: MemoryParts) -> None:
        self._parts = parts

    def outdate_replaced(self, added: list[tuple[MemoryRecord, Vectors]], scope: Scope) -> None:
        """An active memory of the scope that a new statement likely makes out of date is kept as OUTDATED,
        replaced by whichever of the two was said later (the new one, unless the add was backdated before it); its
        history records the change (UPDATE, the text unchanged). Likely out of date: see `replaces`. Candidates:
        the memories the index finds nearest the new statement, by meaning and by keyword, and the add's earlier
        statements."""
        scope_filter = active_in(scope)
        with self._parts.write_lock:
            for k, (record, vector) in enumerate(added):
                hits = {
                    h.memory_id: h.semantic
                    for h in self._parts.index.search(vector, record.text, scope_filter, OUTDATE_CANDIDATES)
                }
                hits.update({r.id: float(v @ vector) for r, v in added[:k]})
                hits.pop(record.id, None)
                self._settle(record.id, hits)

    def outdate_in_its_words(self, said: list[tuple[MemoryRecord, str, Vectors]], scope: Scope) -> None:
        """An active memory that the user's own words behind a new memory (its record, the extractor's statement of
        the sentence it came from, the statement's embedding) make out of date is kept as OUTDATED, replaced by the
        new memory: the change rule reads what the user said, which a model's rewording may hide ("Quit the band"
        from "I left Ztracený Kompas last month"). Only memories older than the new one are outdated."""
        scope_filter = active_in(scope)
        with self._parts.write_lock:
            for record, text, vector in said:
                current = self._parts.store.get(record.id)  # only older memories are outdated here, never this one
                if current is None or current.state is not LifecycleState.ACTIVE:
                    continue  # outdated meanwhile, by another memory of the add
                hits = {
                    h.memory_id: h.semantic
                    for h in self._parts.index.search(vector, text, scope_filter, OUTDATE_CANDIDATES)
                }
                hits.pop(record.id, None)
                in_words = replace(record, text=text)
                for other in self._parts.store.get_many(list(hits)).values():
                    older = other.state is LifecycleState.ACTIVE and other.created_at < current.created_at
                    closeness = self._closeness(text, other.text, hits[other.id])
                    if older and not other.immutable and replaces(self._parts.language, in_words, other, closeness):
                        self._outdate(other, current)

    def _settle(self, memory_id: str, hits: dict[str, float]) -> None:
        """Compare the new memory with each candidate (id -> cosine), as both are now, and outdate the older of
        each pair where one replaces the other (an immutable memory stays as it was added)."""
        store = self._parts.store
        for other in store.get_many(list(hits)).values():
            current = store.get(memory_id)
            if current is None or current.state is not LifecycleState.ACTIVE:
                return  # this statement was itself outdated meanwhile
            closeness = self._closeness(current.text, other.text, hits[other.id])
            if other.state is LifecycleState.ACTIVE and replaces(self._parts.language, current, other, closeness):
                older, newer = (other, current) if other.created_at <= current.created_at else (current, other)
                if not older.immutable:
                    self._outdate(older, newer)

    def _closeness(self, text: str, other: str, whole: float) -> Callable[[], float]:
        """How close two statements are in meaning: the cosine of the whole sentences, or of their closest clauses
        when higher ("I left the agency, I'm freelancing now" is close to the part of "I'm a designer at a small
        agency in Paris and I'm learning typography" it replaces)."""

        def closest() -> float:
            parts, others = self._parts.language.clauses(text), self._parts.language.clauses(other)
            if len(parts) == 1 and len(others) == 1:
                return whole
            vectors = self._parts.embed([*parts, *others])
            return max(whole, float((vectors[: len(parts)] @ vectors[len(parts) :].T).max()))

        return closest

    def _outdate(self, older: MemoryRecord, newer: MemoryRecord) -> None:
        outdated = older.changed(state=LifecycleState.OUTDATED, replaced_by=newer.id)
        self._parts.store.replace(outdated, None, HistoryEntry.of(Event.UPDATE, outdated, older.text, older.text))
        self._parts.index.upsert([outdated], self._parts.embed([older.text]))  # still found by the reads that show it


def replaces(language: ClaimReading, new: MemoryRecord, other: MemoryRecord, similarity: Callable[[], float]) -> bool:
    """Whether one of the two statements likely makes the other out of date: their claims conflict (the same subject
    and attribute, another value: the language pack's claims), or the later one says something changed ("moved", "no
    longer", "passed away"…) about the same subject, and the two are close in meaning (cosine >= CHANGE_SIMILARITY).
    `similarity`: how close the two are in meaning (computed only when the rest of the rule holds)."""
    said, known = language.claims(new.text), language.claims(other.text)
    if any(a.conflicts(b) for a in said for b in known):
        return True
    if new.created_at == other.created_at:  # said together: only conflicting claims tell which is current
        return False
    later, earlier = (new, other) if new.created_at > other.created_at else (other, new)
    return language.says_it_changed(
        later.text, earlier.text, similarity, CHANGE_SIMILARITY, CHANGE_SIMILARITY_SAME_SLOT
    )
