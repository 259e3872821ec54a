"""An inferred add with an LLM: extract the facts (extract.py), show the LLM the active memories closest to them
and let it decide ADD, UPDATE, DELETE or NONE per fact (decide.py), file the new memories (filing.py), then apply
the decisions on the memories they name (apply.py). Every provider call comes before the first write."""

from __future__ import annotations

from mnemo.domain.memory import Event, LifecycleState, MemoryRecord, Scope, now
from mnemo.language import Language
from mnemo.ports.embedder import Vectors
from mnemo.ports.llm import LLM, ChatMessage
from mnemo.services.commands import AddCommand, AddResult
from mnemo.services.memory.add.apply import Applying, Sources
from mnemo.services.memory.add.decide import Decision, decide
from mnemo.services.memory.add.extract import ExtractedFact, extract_facts
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.instructions import extraction_instructions
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.add.provenance import cited_sources
from mnemo.services.memory.parts import MemoryParts
from mnemo.services.memory.scoping import active_in

RELATED_PER_FACT = 5  # existing memories shown to the LLM for each new fact


class InferredAdd:
    def __init__(self, parts: MemoryParts, filing: Filing, applying: Applying) -> None:
        self._parts = parts
        self._filing = filing
        self._applying = applying

    def add(self, add: PendingAdd, llm: LLM) -> list[AddResult]:
        command = add.command
        extracted = extract_facts(
            llm,
            _numbered(command),
            instructions=extraction_instructions(command, self._parts.policy, self._parts.providers),
            multilingual=command.multilingual,
            today=now().date(),
            categories=add.category_set,
        )
        if not extracted:
            return []
        facts = [x.text for x in extracted]
        refs = {str(i): record for i, record in enumerate(self._related(self._parts.embed(facts), add.scope))}
        decisions = decide(llm, {k: r.text for k, r in refs.items()}, facts)
        embedded = self._applying.embedded_for(decisions, refs)
        sources = _sources(self._parts.language, command, extracted, decisions)
        new = _new_records(add, extracted, decisions, sources)
        added = self._filing.store_new(new, add)
        fresh = [r for r in added if r.event is Event.ADD]
        return [*added, *self._applying.apply(decisions, refs, fresh, embedded, sources, facts)]

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


def _new_records(
    add: PendingAdd, extracted: list[ExtractedFact], decisions: list[Decision], sources: Sources
) -> list[MemoryRecord]:
    """A new memory for each fact the LLM decided to ADD, citing its sources, filed where the LLM filed it."""
    filed = {x.text: x.categories for x in extracted if x.categories}
    return [
        add.record(d.text, sources=sources[d.text], attributed_to="user", categories=filed.get(d.text))
        for d in decisions
        if d.event is Event.ADD
    ]


def _sources(
    language: Language, command: AddCommand, extracted: list[ExtractedFact], decisions: list[Decision]
) -> Sources:
    """What each decided fact cites: the messages the LLM named for it, checked (provenance.py)."""
    cited = {x.text: x.sources for x in extracted}
    return {d.text: cited_sources(language, command.messages, d.text, cited.get(d.text, ())) for d in decisions}
