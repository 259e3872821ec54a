"""What the memory pipelines' unit tests build on: one namespace over the real SQLite store and index in a
temporary file, and deterministic providers that implement their ports — an embedder whose vectors follow the words
of a text, an LLM answering from a script, an access log in memory and a reranker that prefers chosen memories."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.domain import filters as f
from mnemo.domain.llm_usage import LLMUsage
from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, Scope
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors, unit_rows
from mnemo.ports.llm import ChatMessage, Completion, JsonSchema
from mnemo.ports.memory_store import DuplicateMemoryError
from mnemo.ports.reranker import RerankCandidate
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.policy import AddPolicy
from mnemo.services.memory.search.fuse import RankingWeights
from mnemo.services.providers import ActiveProviders, ProviderSet

DIMENSION = 256
ALICE = Scope(user_id="alice")
BOB = Scope(user_id="bob")
EVERY_STATE = tuple(LifecycleState)
_WORD = re.compile(r"[a-z0-9]+")


class WordEmbedder:
    """A text's vector: its words (lower case) counted into DIMENSION buckets by a stable hash, of unit length. Texts
    sharing words are close, a text is at cosine 1 of itself. `same`: a text embedded as another one is (a paraphrase
    a test wants at cosine 1). `calls`: the texts of each call, in order."""

    name = "words"
    dimension = DIMENSION

    def __init__(self) -> None:
        self.same: dict[str, str] = {}
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> Vectors:
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(self.same.get(text, text).lower()):
                rows[row, zlib.crc32(word.encode()) % DIMENSION] += 1.0
        return unit_rows(rows)

    def embedded(self) -> list[str]:
        return [text for call in self.calls for text in call]


class ScriptedLLM:
    """An LLM answering each completion with the next reply of its script (a dict is answered as its JSON); each
    call uses 10 input and 5 output tokens. `asked`: the messages of each call; `truncated`: which replies are cut
    off."""

    name = "scripted"

    def __init__(self, *replies: str | dict[str, Any]) -> None:
        self.replies = [r if isinstance(r, str) else json.dumps(r) for r in replies]
        self.asked: list[list[ChatMessage]] = []
        self.truncated: list[bool] = []  # whether each reply, in order, is cut off at the output limit

    def complete(
        self, messages: list[ChatMessage], *, json_mode: bool = False, schema: JsonSchema | None = None
    ) -> Completion:
        self.asked.append(messages)
        cut = self.truncated.pop(0) if self.truncated else False
        return Completion(self.replies.pop(0), LLMUsage.of_call(10, 5), cut)


class ListAccessLog:
    """An access log in memory (the AccessLog port). `failing`: every call raises, as a log that is down."""

    def __init__(self) -> None:
        self.times: dict[str, list[datetime]] = {}
        self.forgotten: list[str] = []
        self.cleared = False
        self.failing = False

    def record(self, accesses: Mapping[str, Sequence[datetime]]) -> None:
        self._check()
        for memory_id, times in accesses.items():
            self.times[memory_id] = sorted([*self.times.get(memory_id, []), *times], reverse=True)

    def recent(self, memory_ids: Sequence[str]) -> dict[str, list[datetime]]:
        self._check()
        return {i: self.times[i] for i in memory_ids if i in self.times}

    def forget(self, memory_ids: Sequence[str]) -> None:
        self._check()
        self.forgotten += memory_ids

    def clear(self) -> None:
        self._check()
        self.cleared = True

    def _check(self) -> None:
        if self.failing:
            raise RuntimeError("the access log is down")


class PreferringReranker:
    """A reranker (the Reranker port) that scores the memories of `preferred` texts by their place in it (the first
    highest), and every other 0.1."""

    name = "preferring"

    def __init__(self, *preferred: str) -> None:
        self.preferred = list(preferred)
        self.asked: list[tuple[str, list[RerankCandidate]]] = []

    def scores(self, query: str, candidates: Sequence[RerankCandidate]) -> list[float]:
        self.asked.append((query, list(candidates)))
        return [1.0 - 0.1 * self.preferred.index(c.text) if c.text in self.preferred else 0.1 for c in candidates]


class SharedStore(SqliteMemoryStore):
    """A store shared with another process, as DynamoDB's is: an insert of a text that an active memory of its scope
    holds is refused with DuplicateMemoryError naming that memory."""

    def insert(self, records: Sequence[MemoryRecord], vectors: Vectors, history: Sequence[HistoryEntry]) -> None:
        for record in records:
            known = self.find_by_hash(record.scope, record.hash)
            if known is not None:
                raise DuplicateMemoryError(known.id, record.scope, record.hash)
        super().insert(records, vectors, history)


class Namespace:
    """One namespace's store, index and providers, and the parts the pipelines share over them."""

    def __init__(
        self,
        path: Path,
        *,
        policy: AddPolicy | None = None,
        llm: ScriptedLLM | None = None,
        accesses: ListAccessLog | None = None,
        reranker: PreferringReranker | None = None,
        shared: bool = False,
    ) -> None:
        self.db = Database(path)
        self.embedder = WordEmbedder()
        self.store = (SharedStore if shared else SqliteMemoryStore)(self.db)
        self.index = LocalMemoryIndex(self.db, DIMENSION, facets=english())
        self.providers = ActiveProviders(ProviderSet(embedder=self.embedder, llm=llm))
        self.parts = MemoryParts(
            self.store,
            self.index,
            self.providers,
            RankingWeights(),
            policy or AddPolicy(),
            accesses,
            reranker,
            language=english(),
        )

    def put(self, text: str, scope: Scope = ALICE, **fields: Any) -> MemoryRecord:
        """A memory stored and indexed as an add would have (`fields`: any of the record's)."""
        record = replace(MemoryRecord.create(text, scope), **fields)
        vectors = self.embedder.embed([text])
        self.store.insert([record], vectors, [HistoryEntry.of(Event.ADD, record, None, text)])
        self.index.upsert([record], vectors)
        return record

    def memories(self, scope: Scope = ALICE) -> dict[str, MemoryRecord]:
        """The scope's memories in any state, by text."""
        owner = f.Condition("user_id", "eq", scope.user_id)
        states = f.Condition("state", "in", [s.value for s in EVERY_STATE])
        return {r.text: r for r in self.store.find(f.conjoin(owner, states))}

    def close(self) -> None:
        self.db.close()
