"""The memory use cases of one namespace: add, get, list, search, update, delete, history, reset."""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemo.domain import filters as f
from mnemo.domain.claims import FACETS_FIELD, USER, asked_facets, claims, clauses, says_it_changed
from mnemo.domain.entities import EntityCount
from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import (
    ACTIVE_ONLY,
    IDENTITY_FIELDS,
    Event,
    HistoryEntry,
    LifecycleState,
    MemoryRecord,
    Scope,
    SourceMessage,
    now,
)
from mnemo.errors import ConflictError, NotFoundError, ValidationError
from mnemo.ports.embedder import Vectors
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.ports.memory_access import AccessLog
from mnemo.ports.memory_index import IndexHit, MemoryIndex
from mnemo.ports.memory_store import DuplicateMemoryError, MemoryStore, indexed_batches
from mnemo.ports.reranker import RerankCandidate, Reranker
from mnemo.services.categories import categorize, with_categories
from mnemo.services.category_classifier import DEFAULT_CATEGORIES, EmbeddingCategorizer, Rule
from mnemo.services.commands import (
    UNSET,
    AddCommand,
    AddResult,
    Category,
    ConsolidateCommand,
    ConsolidationChange,
    DreamAction,
    Merge,
    Message,
    SearchCommand,
    SearchResult,
    Supersede,
    UpdateCommand,
    check_memory_size,
    check_topics,
)
from mnemo.services.decay import DECAY_POOL, Decay, record_multiplier
from mnemo.services.extraction.extractor import Cited, Turn, extract_statements
from mnemo.services.extraction.questions import case_folded, in_first_person
from mnemo.services.extraction.sentences import sentences
from mnemo.services.extraction.topics import TopicMatcher, topics_of
from mnemo.services.extraction.wording import content_words
from mnemo.services.llm_usage import UsageMeter
from mnemo.services.memory.add import prompts
from mnemo.services.memory.add.decide import Decision, decide
from mnemo.services.memory.add.extract import extract_facts
from mnemo.services.memory.search.fuse import RankingWeights, fuse
from mnemo.services.paraphrase import MERGE_THRESHOLD, same_fact
from mnemo.services.providers import ActiveProviders
from mnemo.services.time_window import Window, dates_named, query_windows

log = logging.getLogger("mnemo.memories")

# Every memory of a categorized add gets a category: `misc` (of the default set) when none reaches the threshold.
FILING_RULE = Rule(fallback=True)
MERGE_CANDIDATES = 3  # the closest active memories of the scope a new memory is compared with
NEAR_DUPLICATE = 0.9  # cosine at or above which a heuristic statement repeats an existing memory
RELATED_PER_FACT = 5  # existing memories shown to the LLM for each new fact
OUTDATE_CANDIDATES = 20  # the memories nearest a new statement whose claims it is compared with
CHANGE_SIMILARITY = 0.40  # chosen on bench/data/change_pairs.jsonl (bench/change_rule.py): precision 0.91, recall 0.88
# The same for two statements of one part of a life that holds one state at a time (mnemo.domain.life_slots).
CHANGE_SIMILARITY_SAME_SLOT = 0.25
ANSWER_CANDIDATES = 10  # the memories stating what a question asks about that a search adds to its candidates
# A word that may be a name: capitalized after the start (not "I"), or the query's first word before a verb.
_NAMING = re.compile(r"(?<=\s)(?!I\b)[A-Z][a-z]|^[A-Z][a-z]+(?:'s|’s)?\s+(?:is|was|has|does|works|lives)\b")
ERASE_BATCH = 500  # memories removed per store call of a bulk delete
RERANK_POOL = 100  # a reranked search's candidates: the best 100 semantic and the best 100 keyword matches
RERANK_UNAVAILABLE = "rerank is not available on this deployment: it has no reranker."
CONTEXT_WEIGHT = 0.1  # how far a memory is lifted toward the best other one stated at its moment (_in_context)
TIME_BOOST = 0.1  # added to a memory of the time the query names ("last May": mnemo.services.time_window)

# Told of every delete once it is done: what was erased and the records as they were (to scrub what quotes them).
ErasureListener = Callable[[Erasure, Sequence[MemoryRecord]], None]


@dataclass(frozen=True, slots=True)
class AddPolicy:
    """What an add does beyond storing: `categorize`, file every memory under the add's custom categories, else the
    15 default ones (the LLM's choice on the LLM path, else zero-shot by embedding similarity:
    mnemo.services.category_classifier) — the platform's projects; off, only an add's custom categories are
    matched by keyword (the self-hosted surface). `merge`: a new memory that states the same fact as an active
    memory of its scope (mnemo.services.paraphrase.same_fact) is stored MERGED into it (`replaced_by`), hidden
    from reads that do not ask for merged memories; the add answers it with the event NONE."""

    categorize: bool = False
    merge: bool = False  # a memory that says what an active one of its scope says is kept merged into it


@dataclass(frozen=True, slots=True)
class _Add:
    """An add being made: the command, the categories its memories are filed by keyword (without the policy), and
    the category set its memories are filed under (with it)."""

    command: AddCommand
    categories: tuple[str, ...]
    category_set: tuple[Category, ...] = ()

    @property
    def scope(self) -> Scope:
        return self.command.scope


class MemoryService:
    def __init__(
        self,
        store: MemoryStore,
        index: MemoryIndex,
        providers: ActiveProviders,
        weights: RankingWeights | None = None,
        policy: AddPolicy | None = None,
        accesses: AccessLog | None = None,
        *,
        reranker: Reranker | None = None,
    ) -> None:
        """`accesses`: the log of the memories' retrievals (a platform project's): a decayed search ranks by it and
        records what it returns there; without one, decay counts the memories' age alone. `reranker`: what a search
        with `rerank` re-scores its candidates with (without one, such a search is a 400)."""
        self.store = store
        self.index = index
        self.providers = providers
        self.weights = weights or RankingWeights()
        self.policy = policy or AddPolicy()
        self.accesses = accesses
        self.reranker = reranker
        self.on_erased: ErasureListener | None = None  # told of each delete (a platform project's: its records)
        self._write_lock = threading.Lock()
        self._categorizer: EmbeddingCategorizer | None = None
        self._topics: TopicMatcher | None = None

    # ---- add ----------------------------------------------------------------------------------------

    def add(self, command: AddCommand, *, meter: UsageMeter | None = None) -> list[AddResult]:
        """Store what the add says (its size was checked where it was made). Every provider call happens before
        the first write, so an add that fails on a provider can be made again whole. `meter`: counts the usage of
        the add's LLM calls (none on the paths that call no LLM), also when the add fails after some."""
        if not command.scope.has_owner():
            raise ValidationError("At least one identifier (user_id, agent_id, run_id) is required.")
        check_topics(command)
        command = replace(command, metadata=strip_identity(command.metadata))
        if command.categories is not None:  # exactly these (an import's)
            add = _Add(command, command.categories)
        elif self.policy.categorize:
            add = _Add(command, (), tuple(command.custom_categories) or DEFAULT_CATEGORIES)
        else:
            add = _Add(
                command, categorize(_said(command), command.custom_categories) if command.custom_categories else ()
            )
        llm = self.providers.get().llm
        if llm is not None and meter is not None:
            llm = meter.metered(llm)
        if command.procedural:
            return self._add_procedural(add, llm)
        if not command.infer:
            return self._add_verbatim(add)
        if llm is None:
            return self._add_statements(add)
        return self._add_inferred(add, llm)

    def _add_verbatim(self, add: _Add) -> list[AddResult]:
        candidates = [
            self._new_record(
                m.content.strip(),
                add,
                sources=(SourceMessage(m.role, m.content, i, m.name),),
                actor_id=m.name,
                role=m.role,
            )
            for i, m in enumerate(add.command.messages)
            if m.role != "system" and m.content.strip()
        ]
        return self._store_new(candidates, add)

    def _add_statements(self, add: _Add) -> list[AddResult]:
        """The deterministic extractor's statements (mnemo.services.extraction.extractor), each citing the
        sentences it came from; a statement that repeats another of this add, or an active memory of the scope
        (cosine >= NEAR_DUPLICATE), is not stored again."""
        messages = add.command.messages
        turns = [Turn(i, m.role, m.content) for i, m in enumerate(messages)]
        statements = extract_statements(turns, add.command.timestamp or now())
        if not statements:
            return []
        vectors = self._embed([s.text for s in statements])
        wanted = self._wanted(vectors, add.command)
        statements = [s for s, keep in zip(statements, wanted, strict=True) if keep]
        vectors = vectors[wanted]
        if not statements:
            return []
        scope_filter = f.conjoin(_scope_expr(add.scope), _ACTIVE)
        kept: list[MemoryRecord] = []
        kept_vectors: list[Vectors] = []
        for statement, vector in zip(statements, vectors, strict=True):
            if any(float(vector @ other) >= NEAR_DUPLICATE for other in kept_vectors):
                continue
            nearest = self.index.search(vector, "", scope_filter, 1)
            if nearest and nearest[0].semantic >= NEAR_DUPLICATE:
                continue
            sources = tuple(_source(messages[c.message_index], c) for c in statement.cited)
            kept.append(self._new_record(statement.text, add, sources=sources, attributed_to="user"))
            kept_vectors.append(vector)
        results = self._store_new(kept, add, np.stack(kept_vectors) if kept_vectors else None)
        by_text = {r.text: v for r, v in zip(kept, kept_vectors, strict=True)}
        self._outdate_replaced([(r.record, by_text[r.record.text]) for r in results if r.event is Event.ADD], add.scope)
        return results

    def _outdate_replaced(self, added: list[tuple[MemoryRecord, Vectors]], scope: Scope) -> None:
        """Without an LLM, the current fact wins: an active memory of the scope that a new statement likely makes
        out of date is kept as OUTDATED, replaced by whichever of the two was said later (the new one, unless the
        add was backdated before it); its history records the change (UPDATE, the text unchanged). Likely out of
        date (`_replaces`): their claims conflict (the same subject and attribute, another value:
        mnemo.domain.claims), or the later one says something changed ("moved", "no longer", "passed away"…)
        about the same subject, and the two are close in meaning (cosine >= CHANGE_SIMILARITY). Candidates: the
        memories the index finds nearest the new statement, by meaning and by keyword, and the add's earlier
        statements."""
        scope_filter = f.conjoin(_scope_expr(scope), _ACTIVE)
        with self._write_lock:
            for k, (record, vector) in enumerate(added):
                hits = {
                    h.memory_id: h.semantic
                    for h in self.index.search(vector, record.text, scope_filter, OUTDATE_CANDIDATES)
                }
                hits.update({r.id: float(v @ vector) for r, v in added[:k]})
                hits.pop(record.id, None)
                for other in self.store.get_many(list(hits)).values():
                    current = self.store.get(record.id)
                    if current is None or current.state is not LifecycleState.ACTIVE:
                        break  # this statement was itself outdated meanwhile
                    closeness = self._closeness(current.text, other.text, hits[other.id])
                    if other.state is LifecycleState.ACTIVE and _replaces(current, other, closeness):
                        older, newer = (other, current) if other.created_at <= current.created_at else (current, other)
                        if not older.immutable:  # an immutable memory stays as it was added
                            self._outdate(older, newer)

    def _closeness(self, text: str, other: str, whole: float) -> Callable[[], float]:
        """How close two statements are in meaning: the cosine of the whole sentences, or of their closest clauses
        when higher ("I left the agency, I'm freelancing now" is close to the part of "I'm a designer at a small
        agency in Paris and I'm learning typography" it replaces)."""

        def closest() -> float:
            parts, others = clauses(text), clauses(other)
            if len(parts) == 1 and len(others) == 1:
                return whole
            vectors = self._embed([*parts, *others])
            return max(whole, float((vectors[: len(parts)] @ vectors[len(parts) :].T).max()))

        return closest

    def _outdate(self, older: MemoryRecord, newer: MemoryRecord) -> None:
        outdated = older.changed(state=LifecycleState.OUTDATED, replaced_by=newer.id)
        self.store.replace(outdated, None, HistoryEntry.of(Event.UPDATE, outdated, older.text, older.text))
        self.index.upsert([outdated], self._embed([older.text]))  # still found by the reads that show it

    def _add_inferred(self, add: _Add, llm: LLM) -> list[AddResult]:
        command = add.command
        numbered: list[tuple[int, ChatMessage]] = [
            (i, {"role": m.role, "content": m.content}) for i, m in enumerate(command.messages) if m.content.strip()
        ]
        extracted = extract_facts(
            llm,
            numbered,
            instructions=self._instructions(command),
            multilingual=command.multilingual,
            today=now().date(),
            categories=add.category_set,
        )
        if not extracted:
            return []
        facts = [f.text for f in extracted]
        filed = {f.text: f.categories for f in extracted if f.categories}
        cited = {f.text: f.sources for f in extracted}
        refs = {str(i): record for i, record in enumerate(self._related(self._embed(facts), add.scope))}
        decisions = decide(llm, {k: r.text for k, r in refs.items()}, facts)
        embedded = self._embed_decided(decisions, refs)
        messages = command.messages
        added = self._store_new(
            [
                self._new_record(
                    d.text,
                    add,
                    sources=cited_sources(messages, d.text, cited.get(d.text, ())),
                    attributed_to="user",
                    categories=filed.get(d.text),
                )
                for d in decisions
                if d.event is Event.ADD
            ],
            add,
        )
        fresh = [r for r in added if r.event is Event.ADD]
        sources = {d.text: cited_sources(messages, d.text, cited.get(d.text, ())) for d in decisions}
        return [*added, *self._apply_decisions(decisions, refs, fresh, embedded, sources, facts)]

    def _wanted(self, vectors: Vectors, command: AddCommand) -> npt.NDArray[np.bool_]:
        """Which statements the add's `includes` and `excludes` let through (mnemo.services.extraction.topics): with
        `includes`, only those about one of its topics; never one about a topic of `excludes`."""
        keep = np.ones(len(vectors), dtype=bool)
        embedder = self.providers.get().embedder
        if self._topics is None or self._topics.embedder is not embedder:
            self._topics = TopicMatcher(embedder)
        for text, wanted in ((command.includes, True), (command.excludes, False)):
            named = topics_of(text)
            if named:
                keep &= self._topics.about(vectors, named) == wanted
        return keep

    def _instructions(self, command: AddCommand) -> str | None:
        """The extraction's instructions: the add's own, else the configured ones; an add with custom categories
        (a platform project's) uses its own only, followed by its categories (unless the policy files memories:
        the extraction then lists the categories itself)."""
        if command.custom_categories and self.policy.categorize:
            return with_topics(command.instructions, command)
        if command.custom_categories:
            return with_topics(with_categories(command.instructions, command.custom_categories), command)
        return with_topics(command.instructions or self.providers.get().custom_instructions, command)

    def _related(self, fact_vectors: Vectors, scope: Scope) -> list[MemoryRecord]:
        """The active memories of the scope closest to each new fact, each once, in the order found; not the
        immutable ones, which the LLM's decisions must not change (a fact that would update one is added)."""
        scope_filter = f.conjoin(_scope_expr(scope), _ACTIVE)
        related: dict[str, MemoryRecord] = {}
        for vector in fact_vectors:
            for hit in self.index.search(vector, "", scope_filter, RELATED_PER_FACT):
                if hit.memory_id in related:
                    continue
                record = self.store.get(hit.memory_id)
                if record is not None and record.state is LifecycleState.ACTIVE and not record.immutable:
                    related[hit.memory_id] = record  # an immutable memory is no candidate to UPDATE or DELETE
        return list(related.values())

    def _embed_decided(self, decisions: list[Decision], refs: dict[str, MemoryRecord]) -> dict[str, Vectors]:
        """Every embedding the decisions need, before the first write: a provider failing now leaves nothing
        half-done, so the add can be tried again whole."""
        updates = [d.text for d in decisions if d.event is Event.UPDATE and d.ref in refs]
        retired = [refs[d.ref].text for d in decisions if d.event is Event.DELETE and d.ref in refs]
        new_texts = [d.text for d in decisions if d.event is Event.ADD] if retired else []
        wanted = list(dict.fromkeys([*updates, *retired, *new_texts]))
        return dict(zip(wanted, self._embed(wanted), strict=True)) if wanted else {}

    def _apply_decisions(
        self,
        decisions: list[Decision],
        refs: dict[str, MemoryRecord],
        fresh: list[AddResult],
        embedded: dict[str, Vectors],
        sources: dict[str, tuple[SourceMessage, ...]],
        facts: list[str],
    ) -> list[AddResult]:
        """The UPDATE and DELETE decisions, on the memories as they are now (one still active). An UPDATE adds the
        new fact's sources to the memory's; a DELETE is superseded by the new memory of the fact the LLM names."""
        results: list[AddResult] = []
        with self._write_lock:
            for decision in decisions:
                target = refs.get(decision.ref or "")
                current = None if target is None else self.store.get(target.id)
                if current is None or current.state is not LifecycleState.ACTIVE:
                    continue
                if decision.event is Event.UPDATE and decision.text != current.text:
                    cited = sources.get(decision.text, ())
                    results.append(self._rewrite(current, decision.text, embedded[decision.text], cited))
                elif decision.event is Event.DELETE:
                    named = facts[decision.replaced_by] if decision.replaced_by is not None else None
                    results.append(self._retire(current, fresh, embedded, named))
        return results

    def _rewrite(
        self, current: MemoryRecord, text: str, vector: Vectors, cited: tuple[SourceMessage, ...] = ()
    ) -> AddResult:
        """The memory with a new text, citing what it cited and the new sources (its history keeps the old text)."""
        updated = replace(current.with_text(text), sources=tuple(dict.fromkeys((*current.sources, *cited))))
        self.store.replace(updated, vector, HistoryEntry.of(Event.UPDATE, updated, current.text, text))
        self.index.upsert([updated], vector[None, :])
        return AddResult(updated, Event.UPDATE, previous_memory=current.text)

    def _retire(
        self,
        record: MemoryRecord,
        replacements: list[AddResult],
        embedded: dict[str, Vectors],
        named: str | None = None,
    ) -> AddResult:
        """A memory the new facts made false: superseded by the new memory that replaced it, or deleted when none
        did. The one replacing it: the new memory of the fact the LLM named (`named`), else one whose claim
        conflicts with the memory's (mnemo.domain.claims), else the closest. `embedded`: the vectors of the texts
        involved, computed before the add wrote anything."""
        if not replacements:
            self._erase([record])
            return AddResult(record, Event.DELETE)
        history = HistoryEntry.of(Event.DELETE, record, record.text, None)
        missing = [t for t in (record.text, *[r.record.text for r in replacements]) if t not in embedded]
        if missing:  # a text that changed since the decision was made
            embedded = {**embedded, **dict(zip(missing, self._embed(missing), strict=True))}
        target = embedded[record.text]
        closest = replacements[int(np.argmax([embedded[r.record.text] @ target for r in replacements]))].record
        successor = _successor(record, [r.record for r in replacements], named) or closest
        superseded = record.changed(state=LifecycleState.SUPERSEDED, replaced_by=successor.id)
        self.store.replace(superseded, None, history)
        self.index.upsert([superseded], target[None, :])  # still found by a read that asks for superseded ones
        return AddResult(superseded, Event.DELETE)

    def _add_procedural(self, add: _Add, llm: LLM | None) -> list[AddResult]:
        command = add.command
        if not command.scope.agent_id:
            raise ValidationError("Procedural memories need an agent_id.")
        if llm is None:
            raise ValidationError("Procedural memories are summarised by an LLM; configure one with POST /configure.")
        transcript = "\n".join(f"{m.role}: {m.content}" for m in command.messages)
        summary = llm.complete(
            [
                {"role": "system", "content": command.instructions or prompts.PROCEDURAL_SUMMARY},
                {"role": "user", "content": transcript},
            ]
        ).text.strip()
        if not summary:
            return []
        sources = tuple(SourceMessage(m.role, m.content, i, m.name) for i, m in enumerate(command.messages))
        metadata = {**command.metadata, "memory_type": "procedural_memory"}
        record = self._new_record(summary, replace(add, command=replace(command, metadata=metadata)), sources=sources)
        return self._store_new([record], add)

    def _new_record(
        self, text: str, add: _Add, categories: tuple[str, ...] | None = None, **fields: Any
    ) -> MemoryRecord:
        command = add.command
        return MemoryRecord.create(
            text,
            command.scope,
            at=command.timestamp,
            metadata=dict(command.metadata),
            expiration_date=command.expiration_date,
            categories=categories or add.categories,
            immutable=command.immutable,
            **fields,
        )

    def _store_new(self, records: list[MemoryRecord], add: _Add, vectors: Vectors | None = None) -> list[AddResult]:
        """Store new records, skipping exact duplicates (same scope and text) already stored or in the batch."""
        if not records:
            return []
        scope = add.scope
        if vectors is None:
            vectors = self._embed([r.text for r in records])
        records = self._filed(records, vectors, add.category_set)
        results: list[AddResult] = []
        with self._write_lock:
            fresh: list[int] = []
            seen: dict[str, MemoryRecord] = {}
            for i, record in enumerate(records):
                existing = seen.get(record.hash) or self.store.find_by_hash(scope, record.hash)
                if existing is not None:
                    results.append(AddResult(existing, Event.NONE))
                    continue
                seen[record.hash] = record
                fresh.append(i)
                results.append(AddResult(record, Event.ADD))
            if fresh and self.policy.merge:
                merged = self._merged([records[i] for i in fresh], vectors[fresh], scope)
                for i, record in zip(fresh, merged, strict=True):
                    records[i] = record
            if fresh:
                outcomes = self._insert_new([records[i] for i in fresh], vectors[fresh], scope)
                for i, outcome in zip(fresh, outcomes, strict=True):
                    results[i] = outcome
        return results

    def _merged(self, records: list[MemoryRecord], vectors: Vectors, scope: Scope) -> list[MemoryRecord]:
        """The records, each one that states the same fact as an active memory of the scope (stored, or earlier
        in this batch) marked MERGED into it."""
        out: list[MemoryRecord] = []
        scope_filter = f.conjoin(_scope_expr(scope), _ACTIVE)
        for k, (record, vector) in enumerate(zip(records, vectors, strict=True)):
            if record.immutable:  # stays a memory of its own, as it was added
                out.append(record)
                continue
            candidates = [
                (float(vector @ vectors[j]), out[j]) for j in range(k) if out[j].state is LifecycleState.ACTIVE
            ]
            hits = [
                h
                for h in self.index.search(vector, "", scope_filter, MERGE_CANDIDATES)
                if h.semantic >= MERGE_THRESHOLD
            ]
            stored = self.store.get_many([h.memory_id for h in hits])
            candidates += [(h.semantic, stored[h.memory_id]) for h in hits if h.memory_id in stored]
            same = [
                (similarity, other)
                for similarity, other in candidates
                if other.state is LifecycleState.ACTIVE and same_fact(record.text, other.text, similarity)
            ]
            survivor = max(same, key=lambda pair: pair[0])[1] if same else None
            out.append(replace(record, state=LifecycleState.MERGED, replaced_by=survivor.id) if survivor else record)
        return out

    def _filed(
        self, records: list[MemoryRecord], vectors: Vectors, category_set: tuple[Category, ...]
    ) -> list[MemoryRecord]:
        """The records, each one without categories filed under `category_set` by embedding similarity."""
        unfiled = [i for i, r in enumerate(records) if not r.categories]
        if not category_set or not unfiled:
            return records
        embedder = self.providers.get().embedder
        if self._categorizer is None or self._categorizer.embedder is not embedder:
            self._categorizer = EmbeddingCategorizer(embedder, FILING_RULE)
        chosen = self._categorizer.categorize_vectors(vectors[unfiled], category_set)
        out = list(records)
        for i, names in zip(unfiled, chosen, strict=True):
            out[i] = replace(records[i], categories=names)
        return out

    def _insert_new(self, records: list[MemoryRecord], vectors: Vectors, scope: Scope) -> list[AddResult]:
        history = [HistoryEntry.of(_stored_as(r), r, None, r.text) for r in records]
        try:
            self.store.insert(records, vectors, history)
        except DuplicateMemoryError:
            # Another process stored one of these texts in this scope since find_by_hash looked (a store shared
            # by many processes, such as DynamoDB): settle them one by one; the one that lost is already known.
            return [self._insert_one(record, vectors[k : k + 1], scope) for k, record in enumerate(records)]
        self.index.upsert(records, vectors)
        return [AddResult(r, _stored_as(r)) for r in records]

    def _insert_one(self, record: MemoryRecord, vector: Vectors, scope: Scope) -> AddResult:
        if self.store.get(record.id) is None:  # not stored by a part of the batch that went through
            known = self.store.find_by_hash(scope, record.hash)
            if known is not None:
                return AddResult(known, Event.NONE)
            try:
                self.store.insert([record], vector, [HistoryEntry.of(_stored_as(record), record, None, record.text)])
            except DuplicateMemoryError as lost:
                winner = self.store.get(lost.memory_id) or self.store.find_by_hash(scope, record.hash)
                if winner is None:
                    raise
                return AddResult(winner, Event.NONE)
        self.index.upsert([record], vector)
        return AddResult(record, _stored_as(record))

    # ---- consolidate (Dream) ------------------------------------------------------------------------

    def consolidate(self, command: ConsolidateCommand) -> list[ConsolidationChange]:
        """Apply what a Dream run decided about one scope's memories, to the memories as they are now: one no
        longer active (deleted, merged or superseded since the run read it) or of another owner is left alone, and
        so is any change naming it. Merges first (the kept memory reworded when the run says so, UPDATE; each
        duplicate kept as merged into it, DELETE), then supersedes (the outdated memory kept as superseded by the
        current one, DELETE), then the synthesized memories (ADD, `synthesized`, `derived_from` their sources): one
        whose text an active memory of the scope already states is not stored. Every embedding is computed before
        the first write, so a provider failing leaves nothing half-done."""
        before = self.store.get_many(command.referenced())
        retiring = [r.text for r in before.values() if r.state is LifecycleState.ACTIVE]
        new_texts = [s.text for s in command.syntheses] + [m.text for m in command.merges if m.text]
        wanted = list(dict.fromkeys([*new_texts, *retiring]))
        vectors = dict(zip(wanted, self._embed(wanted), strict=True)) if wanted else {}
        category_set = tuple(command.custom_categories) or DEFAULT_CATEGORIES
        with self._write_lock:
            applying = _Consolidating(self, command, self.store.get_many(command.referenced()), vectors)
            for merge in command.merges:
                applying.merge(merge, category_set)
            for supersede in command.supersedes:
                applying.supersede(supersede)
            return [*applying.changes, *self._synthesized(command, applying.current, vectors, category_set)]

    def _reworded(
        self, record: MemoryRecord, text: str, vector: Vectors, category_set: tuple[Category, ...]
    ) -> MemoryRecord:
        """The memory with a new text (filed anew), stored with its UPDATE history, and indexed."""
        updated = replace(record.with_text(text), categories=())
        if self.policy.categorize:
            (updated,) = self._filed([updated], vector[None, :], category_set)
        else:
            updated = replace(updated, categories=record.categories)
        self.store.replace(updated, vector, HistoryEntry.of(Event.UPDATE, updated, record.text, text))
        self.index.upsert([updated], vector[None, :])
        return updated

    def _synthesized(
        self,
        command: ConsolidateCommand,
        current: dict[str, MemoryRecord],
        vectors: dict[str, Vectors],
        category_set: tuple[Category, ...],
    ) -> list[ConsolidationChange]:
        """The synthesized memories stored (under the write lock): each drawn from two or more memories still
        stored, and saying what no active memory of the scope says yet (by text, or by the merge rule)."""
        records: list[MemoryRecord] = []
        for synthesis in command.syntheses:
            sources = tuple(dict.fromkeys(m for m in synthesis.sources if m in current))
            record = MemoryRecord.create(synthesis.text, command.scope, synthesized=True, derived_from=sources)
            if len(sources) < 2 or any(r.hash == record.hash for r in records):
                continue
            if self.store.find_by_hash(command.scope, record.hash) is not None:
                continue
            records.append(record)
        if not records:
            return []
        stacked = np.stack([vectors[r.text] for r in records])
        said = self._merged(records, stacked, command.scope)
        kept = [i for i, r in enumerate(said) if r.state is LifecycleState.ACTIVE]
        if not kept:
            return []
        filed = self._filed([records[i] for i in kept], stacked[kept], category_set if self.policy.categorize else ())
        stored = self._insert_new(filed, stacked[kept], command.scope)
        return [ConsolidationChange(r.record, r.event, DreamAction.SYNTHESIZE) for r in stored if r.event is Event.ADD]

    # ---- read ---------------------------------------------------------------------------------------

    def get(self, memory_id: str) -> MemoryRecord:
        record = self.store.get(memory_id)
        if record is None:
            raise NotFoundError(f"Memory with id {memory_id} not found.")
        return record

    def get_all(
        self,
        filters: f.Expr,
        *,
        top_k: int | None = 20,
        show_expired: bool = False,
        offset: int = 0,
        states: Sequence[LifecycleState] = ACTIVE_ONLY,
    ) -> list[MemoryRecord]:
        """The memories `filters` match, in the lifecycle `states` asked for (active only by default)."""
        return self.store.find(_visible(filters, show_expired, states), limit=top_k, offset=offset)

    def count(
        self, filters: f.Expr, *, show_expired: bool = False, states: Sequence[LifecycleState] = ACTIVE_ONLY
    ) -> int:
        return self.store.count(_visible(filters, show_expired, states))

    def entity_counts(self) -> list[EntityCount]:
        """Every user, agent, app and run that has active memories, with their count."""
        return self.store.count_by_entity()

    def search(self, command: SearchCommand) -> list[SearchResult]:
        """The best `top_k` memories for the query: relevance (`_relevant`), a current fact ranked above the ones it
        replaced when those are asked for, and with `command.decay` each memory's relevance times its freshness
        multiplier (mnemo.services.decay): the pool widens to max(top_k × 3, 50), memories are sorted by the product,
        the score answered is the product within [0, 1] (so it may fall below the threshold, which applied to
        relevance), and what is returned is recorded as accessed (written later, off this path)."""
        query = command.query.strip()
        if not query:
            raise ValidationError("Invalid query: cannot be empty or whitespace-only.")
        if not 0.0 <= command.threshold <= 1.0:
            raise ValidationError(f"Invalid threshold: {command.threshold}. Must be between 0 and 1 (inclusive).")
        if command.top_k < 0:
            raise ValidationError("top_k must be zero or more.")
        if command.rerank and self.reranker is None:
            raise ValidationError(RERANK_UNAVAILABLE)
        if command.top_k == 0:
            return []
        decay = command.decay
        found = self._relevant(command, query)
        if decay is not None:
            found = self._decayed(found, decay)
        if tuple(command.states) != ACTIVE_ONLY:  # a current fact ranks above the ones it replaced
            # SearchResult(...) rather than dataclasses.replace: the same result, without replace's walk of the fields
            found = _below_their_successors(
                [SearchResult(r.record, r.score * _weight(r.record), r.details) for r in found]
            )
        if decay is None:
            return found[: command.top_k]
        kept = [_clamped(r) for r in found[: command.top_k]]
        self._reinforce(kept, decay)
        return kept

    def _relevant(self, command: SearchCommand, query: str) -> list[SearchResult]:
        """The candidates by relevance, best first: the fused score (the threshold on its semantic part) plus the
        context of each memory's moment (`_in_context`), or with `rerank` the reranker's score; then the boost of the
        memories of the time the query names (`_in_time`). `keyword` false: no keyword candidates or scores."""
        wide = max(command.top_k * 3, DECAY_POOL if command.decay is not None else 30)
        if command.rerank:
            wide = max(wide, RERANK_POOL)
        visible = _visible(command.filters, command.show_expired, command.states)
        query, vector = self._as_the_user(query, visible)
        candidates = self.index.search(vector, query if command.keyword else "", visible, wide)
        answers = self._answers(vector, query, visible, command.top_k)
        listed = {c.memory_id for c in candidates}  # made once, not once per answer
        candidates += [h for h in answers if h.memory_id not in listed]
        ranked = fuse(
            candidates,
            threshold=command.threshold,
            top_k=len(candidates) if command.rerank else wide,
            weights=self.weights,
            answers=frozenset(h.memory_id for h in answers),
        )
        records = self.store.get_many([r.memory_id for r in ranked])
        found = [SearchResult(records[r.memory_id], r.score, r.details) for r in ranked if r.memory_id in records]
        found = self._reranked(command.query, found) if command.rerank else _in_context(found)
        windows = query_windows(query, command.reference_date or datetime.now(UTC))
        return _in_time(found, windows) if windows else found

    def _reranked(self, query: str, found: list[SearchResult]) -> list[SearchResult]:
        """The candidates re-scored by the reranker, best first: the score is the reranker's, in [0, 1]. A memory
        that states what the query asks about is among the candidates whatever its semantic score, but gets no
        boost here: the reranker decides (with the hybrid's answer boost kept, LoCoMo dev's temporal recall@10 was
        0.591 instead of 0.614, the rest within 0.002)."""
        assert self.reranker is not None
        scores = self.reranker.scores(
            query,
            [
                RerankCandidate(
                    r.record.id, r.record.text, r.record.created_at, r.details["semantic_score"], r.details["bm25_raw"]
                )
                for r in found
            ],
        )
        out = []
        for result, score in zip(found, scores, strict=True):
            final = min(max(score, 0.0), 1.0)
            details = {**result.details, "hybrid_score": result.details["final_score"], "rerank_score": round(score, 6)}
            details["final_score"] = round(final, 6)
            out.append(SearchResult(result.record, final, details))
        return sorted(out, key=lambda r: r.score, reverse=True)

    def _as_the_user(self, query: str, visible: f.Expr) -> tuple[str, Vectors]:
        """The query and its embedding; when the search is about one user and the query names them (their user id,
        or the name a memory of theirs gives: "Name is Alice"), the query read in the first person, as their
        memories are written ("Where does Alice live?" -> "Where do I live?": mnemo.services.extraction.questions)."""
        vector = self._embed_query(query)
        users = f.pinned_values(visible, "user_id")
        if users is None or len(users) != 1:
            return query, vector
        (user_id,) = users
        named_by_id = case_folded(user_id) in case_folded(query) and _user_named(user_id).search(query)
        if not _NAMING.search(query) and not named_by_id:
            return query, vector
        named = f.conjoin(visible, f.Condition(FACETS_FIELD, "in", ["name"]))
        hits = self.index.search(vector, query, named, 3)
        names = [user_id] + [
            c.value
            for record in self.store.get_many([h.memory_id for h in hits]).values()
            for c in claims(record.text)
            if c.attribute == "name" and c.subject == USER
        ]
        rewritten = in_first_person(query, names)
        return (query, vector) if rewritten == query else (rewritten, self._embed_query(rewritten))

    def _answers(self, vector: Vectors, query: str, visible: f.Expr, top_k: int) -> list[IndexHit]:
        """The memories that state what the query asks about (where one lives, works…: asked_facets), the closest
        first, whatever their score: a current fact must not fall under the threshold because its words are far
        from the question's."""
        asked = asked_facets(query)
        if not asked:
            return []
        about = f.conjoin(visible, f.Condition(FACETS_FIELD, "in", asked))
        return self.index.search(vector, "", about, max(top_k, ANSWER_CANDIDATES))

    def _decayed(self, found: list[SearchResult], decay: Decay) -> list[SearchResult]:
        """Each result's score multiplied by its freshness multiplier (unclamped: the sort uses the product), best
        first; equal products keep the order of relevance."""
        accesses = self._recent_accesses([r.record.id for r in found])
        out: list[SearchResult] = []
        for result in found:
            factor = record_multiplier(result.record, accesses.get(result.record.id, ()), decay)
            details = {**result.details, "relevance_score": round(result.score, 6)}
            details["decay_multiplier"] = round(factor, 6)
            out.append(SearchResult(result.record, result.score * factor, details))
        return sorted(out, key=lambda r: r.score, reverse=True)

    def _recent_accesses(self, memory_ids: list[str]) -> dict[str, list[datetime]]:
        """The candidates' recorded accesses, in one batched read; none when there is no log or it cannot be read
        (a ranking signal must not fail the search)."""
        if self.accesses is None or not memory_ids:
            return {}
        try:
            return self.accesses.recent(memory_ids)
        except Exception:
            log.exception("could not read the accesses of %d memories: ranking by age alone", len(memory_ids))
            return {}

    def _reinforce(self, returned: list[SearchResult], decay: Decay) -> None:
        """Record the returned memories as accessed at the search's moment (buffered: written off this path)."""
        if self.accesses is None or not returned:
            return
        try:
            self.accesses.record({r.record.id: [decay.at] for r in returned})
        except Exception:
            log.exception("could not record the accesses of %d memories", len(returned))

    def history(self, memory_id: str) -> list[HistoryEntry]:
        entries = self.store.history(memory_id)
        if not entries and self.store.get(memory_id) is None:
            raise NotFoundError(f"Memory with id {memory_id} not found.")
        return entries

    # ---- change -------------------------------------------------------------------------------------

    def update(self, command: UpdateCommand) -> MemoryRecord:
        if (
            command.text is None
            and command.metadata is None
            and command.expiration_date is UNSET
            and command.created_at is None
        ):
            raise ValidationError("At least one of text, metadata, or expiration_date must be provided.")
        if command.text is not None and not command.text.strip():
            raise ValidationError("text must not be empty.")
        with self._write_lock:
            current = self.get(command.memory_id)
            if current.immutable:
                raise ConflictError(
                    f"Memory {current.id} is immutable: it cannot be updated. Delete it and add the new text instead."
                )
            changes: dict[str, Any] = {}
            if command.metadata is not None:
                changes["metadata"] = {**current.metadata, **strip_identity(command.metadata)}
            if command.expiration_date is not UNSET:
                changes["expiration_date"] = command.expiration_date
            if command.created_at is not None:
                changes["created_at"] = command.created_at
            updated = current.changed(**changes)
            check_memory_size(updated.text if command.text is None else command.text.strip(), updated.metadata)
            vector: Vectors | None = None
            if command.text is not None and command.text.strip() != current.text:
                updated = updated.with_text(command.text.strip())
                vector = self._embed([updated.text])
                if self.policy.categorize:  # a new text is filed anew
                    category_set = tuple(command.custom_categories) or DEFAULT_CATEGORIES
                    (updated,) = self._filed([replace(updated, categories=())], vector, category_set)
            history = HistoryEntry.of(Event.UPDATE, updated, current.text, updated.text)
            self.store.replace(updated, None if vector is None else vector[0], history)
            self.index.upsert([updated], vector if vector is not None else self._embed([updated.text]))
            return updated

    # A delete erases (mnemo.domain.erasure): the store removes the memories and their texts from their history,
    # their siblings' sources and the outbox; the index drops their entries; then, once per operation, both make
    # what was removed unrecoverable from their files (`purge`), and `on_erased` scrubs the records kept elsewhere.

    def delete(self, memory_id: str) -> None:
        with self._write_lock:
            self._erase([self.get(memory_id)])

    def delete_all(self, filters: f.Expr) -> int:
        if all(f.pinned_values(filters, name) is None for name in ("user_id", "agent_id", "run_id")):
            raise ValidationError("At least one identifier is required.")
        with self._write_lock:
            records = self.store.find(filters)
            self._erase(records)
        return len(records)

    def delete_many(self, memory_ids: Sequence[str]) -> list[str]:
        """Delete the memories of these ids that are stored (any lifecycle state), as one operation: one purge,
        one erasure elsewhere. Their ids, in the order asked."""
        wanted = list(dict.fromkeys(memory_ids))
        with self._write_lock:
            found = self.store.get_many(wanted)
            records = [found[i] for i in wanted if i in found]
            self._erase(records)
        return [r.id for r in records]

    def reset(self) -> None:
        with self._write_lock:
            self.store.clear()
            self.index.clear()
            if self.accesses is not None:
                self.accesses.clear()
            self._purge()

    def _erase(self, records: Sequence[MemoryRecord]) -> None:
        """Remove the memories (the caller holds the write lock), in chunks of ERASE_BATCH, each DELETE in their
        history without text; then purge once, and tell `on_erased` what was erased."""
        said: list[str] = []
        for start in range(0, len(records), ERASE_BATCH):
            chunk = records[start : start + ERASE_BATCH]
            ids = [r.id for r in chunk]
            said += self.store.remove(ids, [HistoryEntry.of(Event.DELETE, r, None, None) for r in chunk])
            self.index.remove(ids)
            self._forget(ids)
        if not records:
            return
        self._purge()
        if self.on_erased is not None:
            try:
                self.on_erased(Erasure.of(records, said), records)
            except Exception:
                log.exception("could not erase %d deleted memories from the records beside them", len(records))

    def _purge(self) -> None:
        """What was removed made unrecoverable from the index's and the store's files (a failure is logged: the
        delete stands, and the next purge takes it along)."""
        try:
            self.index.purge()
            self.store.purge()
        except Exception:
            log.exception("could not purge what a delete removed")

    def _forget(self, memory_ids: list[str]) -> None:
        """Drop the accesses of deleted memories (a failure leaves rows of memories that are gone: never read, as
        ids are never reused; logged, and the delete stands)."""
        if self.accesses is None:
            return
        try:
            self.accesses.forget(memory_ids)
        except Exception:
            log.exception("could not forget the accesses of %d deleted memories", len(memory_ids))

    def reembed_all(self) -> int:
        """Embed every stored memory again with the current embedder (after the embedder changed)."""
        count = 0
        with self._write_lock:
            batches = [records for records, _old in self.store.scan(500)]
            # Embed everything before changing anything: a provider failure leaves the store and index intact.
            fresh = [(records, self._embed([r.text for r in records])) for records in batches]
            self.index.clear()
            for records, vectors in fresh:
                self.store.set_vectors([r.id for r in records], vectors)
                count += len(records)
            for records, vectors in indexed_batches(fresh):
                self.index.upsert(records, vectors)
        return count

    def _embed(self, texts: Sequence[str]) -> Vectors:
        return self.providers.get().embedder.embed(list(texts))

    def _embed_query(self, query: str) -> Vectors:
        vector: Vectors = self.providers.get().embedder.embed([query])[0]
        return vector


class _Consolidating:
    """One consolidation being applied (under the service's write lock): the memories it names as they are now,
    the embeddings computed for it, and the changes made so far."""

    def __init__(
        self,
        service: MemoryService,
        command: ConsolidateCommand,
        current: dict[str, MemoryRecord],
        vectors: dict[str, Vectors],
    ) -> None:
        self._service = service
        self._owner = _owner_of(command.scope)
        self.current = current
        self._vectors = vectors
        self.changes: list[ConsolidationChange] = []

    def active(self, memory_id: str) -> MemoryRecord | None:
        """The memory, when it is still active and of the command's owner."""
        record = self.current.get(memory_id)
        if record is None or record.state is not LifecycleState.ACTIVE or _owner_of(record.scope) != self._owner:
            return None
        return record

    def merge(self, merge: Merge, category_set: tuple[Category, ...]) -> None:
        keep = self.active(merge.keep)
        duplicates = [d for d in map(self.active, dict.fromkeys(merge.duplicates)) if d and d.id != merge.keep]
        if keep is None or not duplicates:
            return
        duplicates = [d for d in duplicates if not d.immutable]  # an immutable memory is never merged away
        if not duplicates:
            return
        if merge.text and merge.text != keep.text and not keep.immutable:
            reworded = self._service._reworded(keep, merge.text, self._vectors[merge.text], category_set)
            self.current[keep.id] = reworded
            self.changes.append(ConsolidationChange(reworded, Event.UPDATE, DreamAction.MERGE, keep.text))
        for duplicate in duplicates:
            self._retire(duplicate, LifecycleState.MERGED, keep.id, DreamAction.MERGE)

    def supersede(self, supersede: Supersede) -> None:
        outdated, successor = self.active(supersede.outdated), self.active(supersede.current)
        if outdated is not None and successor is not None and outdated.id != successor.id and not outdated.immutable:
            self._retire(outdated, LifecycleState.SUPERSEDED, successor.id, DreamAction.SUPERSEDE)

    def _retire(self, record: MemoryRecord, state: LifecycleState, by: str, action: DreamAction) -> None:
        """The memory kept in `state`, replaced by `by` (a DELETE in its history), and still indexed: a read that
        asks for merged or superseded memories finds it."""
        retired = record.changed(state=state, replaced_by=by)
        self._service.store.replace(retired, None, HistoryEntry.of(Event.DELETE, retired, record.text, None))
        if record.text not in self._vectors:  # its text changed since the run read it
            self._vectors[record.text] = self._service._embed([record.text])[0]
        self._service.index.upsert([retired], self._vectors[record.text][None, :])
        self.current[record.id] = retired
        self.changes.append(ConsolidationChange(retired, Event.DELETE, action))


def with_topics(instructions: str | None, command: AddCommand) -> str | None:
    """The extraction's instructions, followed by what the add asks to extract only and never to extract."""
    asked = [
        f"Extract only facts about: {command.includes}." if command.includes else "",
        f"Never extract facts about: {command.excludes}." if command.excludes else "",
    ]
    parts = [p for p in (instructions, *asked) if p]
    return "\n".join(parts) if parts else None


def _owner_of(scope: Scope) -> tuple[str | None, str | None, str | None]:
    """Whose memory it is: its user, agent and run (its app aside)."""
    return scope.user_id, scope.agent_id, scope.run_id


_ACTIVE = f.Condition("state", "eq", LifecycleState.ACTIVE.value)
# A superseded or merged memory's score, when a search asks for them too: below the current fact it gave way to.
REPLACED_WEIGHT = 0.5


def _below_their_successors(found: list[SearchResult]) -> list[SearchResult]:
    """Best first, except that a superseded or merged memory comes right after the memory that replaced it when
    both are found (with at most its score): the current fact always ranks first."""
    found = sorted(found, key=lambda r: r.score, reverse=True)
    ids = {r.record.id for r in found}

    def follows(r: SearchResult) -> bool:
        return r.record.state is not LifecycleState.ACTIVE and r.record.replaced_by in ids

    out = [r for r in found if not follows(r)]
    for moved in (r for r in found if follows(r)):
        at = next((i for i, r in enumerate(out) if r.record.id == moved.record.replaced_by), None)
        if at is None:
            out.append(moved)
            continue
        out.insert(at + 1, replace(moved, score=min(moved.score, out[at].score)))
    return out


@functools.lru_cache(maxsize=1024)
def _user_named(user_id: str) -> re.Pattern[str]:
    """The user's id as a word of a query, compiled once per user (re's own cache churned with many users)."""
    return re.compile(rf"\b{re.escape(user_id)}\b", re.IGNORECASE)


def _in_context(found: list[SearchResult]) -> list[SearchResult]:
    """Each score lifted toward the best score among the other candidates stated at the same moment (same
    `created_at`: one add, one session of a conversation) by CONTEXT_WEIGHT of the gap, when that one is higher;
    best first. A memory said where the conversation was about what the query asks is likelier to answer it. No
    score goes down, and a memory alone at its moment keeps its own."""
    moments: dict[datetime, list[float]] = {}
    for result in found:
        moments.setdefault(result.record.created_at, []).append(result.score)
    best_two = {moment: sorted(scores, reverse=True)[:2] for moment, scores in moments.items()}  # once per moment
    out = []
    for result in found:
        scores = best_two[result.record.created_at]
        other = (scores[1] if scores[0] == result.score else scores[0]) if len(scores) > 1 else 0.0
        if other <= result.score:  # nothing to lift it toward: kept as it is (most memories, alone at their moment)
            out.append(result)
            continue
        score = result.score + CONTEXT_WEIGHT * (other - result.score)
        details = {**result.details, "final_score": round(score, 6)}  # no key of its own: the reference's shape
        out.append(SearchResult(result.record, score, details))
    return sorted(out, key=lambda r: r.score, reverse=True)


def _in_time(found: list[SearchResult], windows: list[Window]) -> list[SearchResult]:
    """TIME_BOOST added (within 1) to the memories of the time the query names: made then (`created_at`), or naming a
    date of it; best first, equal scores in their order."""
    out = []
    for result in found:
        record = result.record
        inside = any(w.holds(record.created_at) for w in windows) or any(
            named.start < w.end and w.start < named.end for named in dates_named(record.text) for w in windows
        )
        boost = TIME_BOOST if inside else 0.0
        details = {**result.details, "time_boost": boost}
        out.append(SearchResult(record, min(result.score + boost, 1.0), details))
    return sorted(out, key=lambda r: r.score, reverse=True)


def _clamped(result: SearchResult) -> SearchResult:
    """A decayed result with its public score: the product within [0, 1]."""
    score = min(max(result.score, 0.0), 1.0)
    return replace(result, score=score, details={**result.details, "final_score": round(score, 6)})


def _stored_as(record: MemoryRecord) -> Event:
    """A new memory's event: ADD, or NONE for one merged into a memory already there (no webhook event)."""
    return Event.NONE if record.state is LifecycleState.MERGED else Event.ADD


def _weight(record: MemoryRecord) -> float:
    return 1.0 if record.state is LifecycleState.ACTIVE else REPLACED_WEIGHT


def _in_states(states: Sequence[LifecycleState]) -> f.Expr:
    if tuple(states) == ACTIVE_ONLY:
        return _ACTIVE
    return f.Condition("state", "in", [s.value for s in states])


def _visible(filters: f.Expr, show_expired: bool, states: Sequence[LifecycleState] = ACTIVE_ONLY) -> f.Expr:
    if show_expired:
        return f.conjoin(filters, _in_states(states))
    today = now().date()
    not_expired = f.Or(
        (f.Not(f.Condition("expiration_date", "exists", None)), f.Condition("expiration_date", "gte", today))
    )
    return f.conjoin(filters, _in_states(states), not_expired)


def _scope_expr(scope: Scope) -> f.Expr:
    """The memories of the same owner: its user, agent and run (any app), or its app when it has nothing else."""
    ids = scope.as_filter()
    if not scope.is_empty():
        ids.pop("app_id", None)
    return f.And(tuple(f.Condition(name, "eq", value) for name, value in ids.items()))


def _said(command: AddCommand) -> str:
    """What the add's messages say (not the system's): what its memories are filed by."""
    return " ".join(m.content for m in command.messages if m.role != "system")


def _replaces(new: MemoryRecord, other: MemoryRecord, similarity: Callable[[], float]) -> bool:
    """Whether one of the two statements likely makes the other out of date (see MemoryService._outdate_replaced).
    `similarity`: how close the two are in meaning (computed only when the rest of the rule holds)."""
    said, known = claims(new.text), claims(other.text)
    if any(a.conflicts(b) for a in said for b in known):
        return True
    if new.created_at == other.created_at:  # said together: only conflicting claims tell which is current
        return False
    later, earlier = (new, other) if new.created_at > other.created_at else (other, new)
    return says_it_changed(later.text, earlier.text, similarity, CHANGE_SIMILARITY, CHANGE_SIMILARITY_SAME_SLOT)


def _successor(record: MemoryRecord, candidates: list[MemoryRecord], named: str | None) -> MemoryRecord | None:
    """The new memory that replaced `record`: the one of the fact the LLM named, else the first whose claim
    conflicts with the record's; None when neither says."""
    for candidate in candidates:
        if named is not None and candidate.text == named:
            return candidate
    old = claims(record.text)
    return next((c for c in candidates if any(n.conflicts(o) for n in claims(c.text) for o in old)), None)


def cited_sources(messages: Sequence[Message], fact: str, numbers: Sequence[int]) -> tuple[SourceMessage, ...]:
    """The sources of a fact the LLM extracted: the messages it cited, checked — in range, not empty, not the
    system's, at least one of them the user's (else the LLM's answer is not trusted and the user's messages are
    searched instead) — each as the sentence that shares most words with the fact (its span in the message), or
    whole when none does. Without a trusted citation, the one sentence of the user's messages sharing most words
    with the fact, or every user message when none shares any."""
    usable = [n for n in dict.fromkeys(numbers) if 0 <= n < len(messages) and _citable(messages[n])]
    if any(messages[n].role == "user" for n in usable):
        return tuple(_best_sentence(messages[n], n, fact)[0] for n in usable)
    users = [n for n, m in enumerate(messages) if m.role == "user" and m.content.strip()]
    best = [_best_sentence(messages[n], n, fact) for n in users]
    shared = [b for b in best if b[1] > 0]
    if shared:
        return (max(shared, key=lambda b: b[1])[0],)
    return tuple(SourceMessage(messages[n].role, messages[n].content, n, messages[n].name) for n in users)


def _citable(message: Message) -> bool:
    return message.role != "system" and bool(message.content.strip())


def _best_sentence(message: Message, index: int, fact: str) -> tuple[SourceMessage, int]:
    """The sentence of the message that shares most content words with the fact (the first of equals), with how many
    it shares; the whole message when it shares none."""
    wanted = set(content_words(fact))
    scored = [(len(wanted & set(content_words(s.text))), s) for s in sentences(message.content)]
    shared, best = max(scored, key=lambda pair: pair[0], default=(0, None))
    if best is None or shared == 0:
        return SourceMessage(message.role, message.content, index, message.name), 0
    return _sentence_of(message, index, best.text, best.start, best.end), shared


def _source(message: Message, cited: Cited) -> SourceMessage:
    """The sentence of a message a statement came from, with its place in the message."""
    return _sentence_of(message, cited.message_index, cited.text, cited.start, cited.end)


def _sentence_of(message: Message, index: int, text: str, start: int, end: int) -> SourceMessage:
    """A sentence of a message as a source: with its span, unless it is the whole message (then cited whole)."""
    whole = message.content.strip() == text
    return SourceMessage(
        message.role, message.content if whole else text, index, message.name, None if whole else (start, end)
    )


def strip_identity(metadata: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (metadata or {}).items() if k not in IDENTITY_FIELDS}
