"""An inferred add without an LLM: the deterministic extractor's statements (mnemo.services.extraction), each
citing the sentences it came from, kept when they are about the add's topics and say something new, then filed;
the current fact wins over what they make out of date (outdating.py)."""

from __future__ import annotations

import numpy as np

from mnemo.domain import filters as f
from mnemo.domain.memory import Event, MemoryRecord, SourceMessage, now
from mnemo.language import Cited, Statement, Turn
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import AddResult
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.outdating import Outdating
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.add.provenance import source_of
from mnemo.services.memory.add.topics import Topics
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import active_in

NEAR_DUPLICATE = 0.9  # cosine at or above which a heuristic statement repeats an existing memory
COVERED = 0.7  # cosine at or above which a memory of the LLM's answer says what a statement says


class StatementsAdd:
    def __init__(self, parts: MemoryParts, filing: Filing, topics: Topics, outdating: Outdating) -> None:
        self._parts = parts
        self._filing = filing
        self._topics = topics
        self._outdating = outdating

    def add(self, add: PendingAdd) -> list[AddResult]:
        """The statements stored; one that repeats another of this add, or an active memory of the scope
        (cosine >= NEAR_DUPLICATE, naming no other value: `repeats`), is not stored again."""
        statements, vectors = self._about_its_topics(add)
        return self._store(add, statements, vectors)

    def add_beside(self, add: PendingAdd, answered: list[AddResult]) -> list[AddResult]:
        """The statements an LLM's answer left out, stored beside it: those whose sentence none of the `answered`
        memories cites and that none of them says in other words (cosine below COVERED). A statement one of the
        answer's new memories covers is not stored, but the change rule reads it for that memory
        (`Outdating.outdate_in_its_words`)."""
        statements, vectors = self._about_its_topics(add)
        if not statements:
            return []
        records = [r.record for r in answered]
        said = self._parts.embed([r.text for r in records]) if records else np.empty((0, 0), dtype=np.float32)
        left_out: list[int] = []
        in_words: list[tuple[MemoryRecord, str, Vectors]] = []
        for i, statement in enumerate(statements):
            covering = _covering(statement, vectors[i], records, said)
            if covering is None:
                left_out.append(i)
            elif answered[covering].event in (Event.ADD, Event.UPDATE):
                in_words.append((records[covering], statement.text, vectors[i]))
        self._outdating.outdate_in_its_words(in_words, add.scope)
        return self._store(add, [statements[i] for i in left_out], vectors[left_out])

    def _store(self, add: PendingAdd, statements: list[Statement], vectors: Vectors) -> list[AddResult]:
        if not statements:
            return []
        kept, kept_vectors = self._new_statements(statements, vectors, add)
        results = self._filing.store_new(kept, add, np.stack(kept_vectors) if kept_vectors else None)
        by_text = {r.text: v for r, v in zip(kept, kept_vectors, strict=True)}
        added = [(r.record, by_text[r.record.text]) for r in results if r.event is Event.ADD]
        self._outdating.outdate_replaced(added, add.scope)
        return results

    def _about_its_topics(self, add: PendingAdd) -> tuple[list[Statement], Vectors]:
        """The extractor's statements the add's topics let through (topics.py), with their embeddings."""
        turns = [Turn(i, m.role, m.content) for i, m in enumerate(add.command.messages)]
        statements = self._parts.language.statements(turns, add.command.timestamp or now())
        if not statements:
            return [], np.empty((0, 0), dtype=np.float32)
        vectors = self._parts.embed([s.text for s in statements])
        wanted = self._topics.wanted(vectors, add.command)
        return [s for s, keep in zip(statements, wanted, strict=True) if keep], vectors[wanted]

    def _new_statements(
        self, statements: list[Statement], vectors: Vectors, add: PendingAdd
    ) -> tuple[list[MemoryRecord], list[Vectors]]:
        """The new memories of the statements that repeat neither an earlier one nor an active memory, with their
        embeddings."""
        messages = add.command.messages
        scope_filter = active_in(add.scope)
        kept: list[MemoryRecord] = []
        kept_vectors: list[Vectors] = []
        for statement, vector in zip(statements, vectors, strict=True):
            earlier = [(r.text, v) for r, v in zip(kept, kept_vectors, strict=True)]
            if self._repeats(statement.text, vector, earlier, scope_filter):
                continue
            sources = tuple(source_of(messages[c.message_index], c) for c in statement.cited)
            kept.append(add.record(statement.text, sources=sources, attributed_to="user"))
            kept_vectors.append(vector)
        return kept, kept_vectors

    def _repeats(self, text: str, vector: Vectors, earlier: list[tuple[str, Vectors]], scope_filter: f.Expr) -> bool:
        if any(repeats(self._parts, text, other, float(vector @ v)) for other, v in earlier):
            return True
        nearest = self._parts.index.search(vector, "", scope_filter, 1)
        if not nearest or nearest[0].semantic < NEAR_DUPLICATE:
            return False
        existing = self._parts.store.get(nearest[0].memory_id)
        return existing is not None and repeats(self._parts, text, existing.text, nearest[0].semantic)


def repeats(parts: MemoryParts, text: str, other: str, similarity: float) -> bool:
    """Whether a new statement repeats an earlier one: this close in meaning (NEAR_DUPLICATE) and naming no other
    value (a rescheduled day, another city, a negation: the language pack's `differ_in_value`), which would make
    it a change the current fact must win, not a repeat to drop."""
    return similarity >= NEAR_DUPLICATE and not parts.language.differ_in_value(text, other)


def _covering(statement: Statement, vector: Vectors, records: list[MemoryRecord], said: Vectors) -> int | None:
    """The answered memory that covers the statement: the first citing the user's sentence it came from, else the
    closest in meaning at or above COVERED; None when none does. A source without a span cites its whole message:
    that is the statement's sentence when the message is that one sentence, and no sentence in particular when the
    model's fact shares no word with any of a longer message's (then only meaning decides)."""
    own = statement.cited[-1]
    for k, record in enumerate(records):
        cited = [s for s in record.sources if s.role == "user" and s.index == own.message_index]
        if any(_cites_sentence(s, own) for s in cited):
            return k
    if not records:
        return None
    similarities = said @ vector
    best = int(similarities.argmax())
    return best if float(similarities[best]) >= COVERED else None


def _cites_sentence(source: SourceMessage, own: Cited) -> bool:
    """Whether a source of the same message cites the statement's sentence: its span overlaps the sentence's, or,
    cited whole, the message is that sentence."""
    if source.span is None:
        return source.content.strip() == own.text.strip()
    return source.span[0] < own.end and own.start < source.span[1]
