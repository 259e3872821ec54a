"""An inferred add with an LLM: extract the facts (extract.py), keep those the conversation supports (grounding.py),
show the LLM the active memories closest to them and let it decide ADD, UPDATE, DELETE or NONE per fact (decide.py;
with no active memory in the scope there is nothing to decide against, and every fact is added without asking),
file the new memories (filing.py), then apply the decisions on the memories they name (apply.py). Every provider call
comes before the first write; an LLM answer that cannot be used is an UnusableAnswerError (fallback.py)."""

from __future__ import annotations

from dataclasses import replace

from mnemo.domain.memory import Event, LifecycleState, MemoryRecord, Scope, now
from mnemo.language import Language
from mnemo.ports.embedder import Vectors
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.commands import AddCommand, AddResult
from mnemo.services.memory.add.apply import Applying, Sources
from mnemo.services.memory.add.decide import Decision, decide, with_unmentioned
from mnemo.services.memory.add.extract import ExtractedFact, extract_facts
from mnemo.services.memory.add.fallback import asking_the_llm
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.grounding import grounded_sources
from mnemo.services.memory.add.instructions import extraction_instructions
from mnemo.services.memory.add.outdating import Outdating
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.add.statements import repeats
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import active_in

RELATED_PER_FACT = 5  # existing memories shown to the LLM for each new fact


class InferredAdd:
    def __init__(self, parts: MemoryParts, filing: Filing, applying: Applying, outdating: Outdating) -> None:
        self._parts = parts
        self._filing = filing
        self._applying = applying
        self._outdating = outdating

    def add(self, add: PendingAdd, llm: LLM) -> list[AddResult]:
        command = add.command
        with asking_the_llm():
            extracted, grounded = self._grounded_facts(add, llm)
        if not extracted:
            return []
        facts = [x.text for x in extracted]
        refs = {str(i): record for i, record in enumerate(self._related(self._parts.embed(facts), add.scope))}
        existing = {k: r.text for k, r in refs.items()}
        with asking_the_llm():
            decided = decide(llm, existing, facts) if existing else []  # nothing it could change: all are new
        decisions = with_unmentioned(self._parts.language, decided, facts, existing)
        sources = _sources(self._parts.language, command, grounded, decisions)
        decisions = [d for d in decisions if d.event is not Event.ADD or sources[d.text]]
        embedded = self._applying.embedded_for(decisions, refs)
        new = _new_records(add, decisions, sources)
        if not new:
            return self._applying.apply(decisions, refs, [], embedded, sources, facts)
        new, vectors, repeats = self._not_repeated(new, self._parts.embed([r.text for r in new]), add.scope)
        added = [*self._filing.store_new(new, add, vectors), *repeats]
        fresh = [r for r in added if r.event is Event.ADD]
        results = [*added, *self._applying.apply(decisions, refs, fresh, embedded, sources, facts)]
        # The current fact wins on this path too, whatever the LLM flagged.
        by_text = {r.text: v for r, v in zip(new, vectors, strict=True)}
        still = [(r.record, by_text[r.record.text]) for r in fresh if r.record.text in by_text]
        self._outdating.outdate_replaced(still, add.scope)
        return results

    def _grounded_facts(self, add: PendingAdd, llm: LLM) -> tuple[list[ExtractedFact], Sources]:
        """The facts the LLM extracts that the conversation supports (grounding.py), with their sources; a relative
        date a fact keeps ("last month") is written as the date it means at the add's time, as without an LLM."""
        command = add.command
        said_at = command.timestamp or now()
        extracted = extract_facts(
            llm,
            _numbered(command),
            instructions=extraction_instructions(command, self._parts.policy, self._parts.providers),
            multilingual=command.multilingual,
            today=said_at.date(),
        )
        language = self._parts.language
        extracted = [replace(x, text=language.resolve_dates(x.text, said_at)) for x in extracted]
        grounded = {
            x.text: s for x in extracted if (s := grounded_sources(language, command.messages, x.text, x.sources))
        }
        return [x for x in extracted if x.text in grounded], grounded

    def _not_repeated(
        self, records: list[MemoryRecord], vectors: Vectors, scope: Scope
    ) -> tuple[list[MemoryRecord], Vectors, list[AddResult]]:
        """The new records that repeat neither an earlier one of the add nor an active memory of the scope (cosine
        `repeats`, as on the extractor's path), with their embeddings; and the memories repeated,
        answered as NONE."""
        scope_filter = active_in(scope)
        kept: list[int] = []
        repeated: dict[str, AddResult] = {}
        for i, vector in enumerate(vectors):
            text = records[i].text
            if any(repeats(self._parts, text, records[k].text, float(vector @ vectors[k])) for k in kept):
                continue
            nearest = self._parts.index.search(vector, "", scope_filter, 1)
            existing = self._parts.store.get(nearest[0].memory_id) if nearest else None
            if existing is not None and repeats(self._parts, text, existing.text, nearest[0].semantic):
                repeated.setdefault(existing.id, AddResult(existing, Event.NONE))
                continue
            kept.append(i)
        return [records[i] for i in kept], vectors[kept], list(repeated.values())

    def _related(self, fact_vectors: Vectors, scope: Scope) -> list[MemoryRecord]:
        """The active memories of the scope closest to each new fact, each once, in the order found; not the
        immutable ones, which the LLM's decisions must not change (a fact that would update one is added)."""
        scope_filter = active_in(scope)
        related: dict[str, MemoryRecord] = {}
        for vector in fact_vectors:
            for hit in self._parts.index.search(vector, "", scope_filter, RELATED_PER_FACT):
                if hit.memory_id in related:
                    continue
                record = self._parts.store.get(hit.memory_id)
                if record is not None and record.state is LifecycleState.ACTIVE and not record.immutable:
                    related[hit.memory_id] = record  # an immutable memory is no candidate to UPDATE or DELETE
        return list(related.values())


def _numbered(command: AddCommand) -> list[tuple[int, ChatMessage]]:
    """The add's messages that say something, each with its number in the add (what the LLM cites)."""
    return [(i, {"role": m.role, "content": m.content}) for i, m in enumerate(command.messages) if m.content.strip()]


def _new_records(add: PendingAdd, decisions: list[Decision], sources: Sources) -> list[MemoryRecord]:
    """A new memory for each fact the LLM decided to ADD, citing its sources (filed under categories later)."""
    return [
        add.record(d.text, sources=sources[d.text], attributed_to="user") for d in decisions if d.event is Event.ADD
    ]


def _sources(language: Language, command: AddCommand, grounded: Sources, decisions: list[Decision]) -> Sources:
    """What each decided text cites: an extracted fact's grounded sources, else the user's sentence that supports
    it (grounding.py); empty for a text of the decision the conversation does not support."""
    return {d.text: grounded.get(d.text) or grounded_sources(language, command.messages, d.text, ()) for d in decisions}
