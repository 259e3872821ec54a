"""The LLM's UPDATE and DELETE decisions applied to the memories they name, as those are now (one still active):
an UPDATE rewrites the memory and adds the new fact's sources to its own; a DELETE keeps the memory SUPERSEDED by the
new memory that replaced it, or erases it when the add stored none. Every embedding the decisions need is computed
before the add's first write (`embedded_for`), so a provider failing leaves nothing half-done."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mnemo.domain.memory import Event, HistoryEntry, LifecycleState, MemoryRecord, SourceMessage
from mnemo.language import ClaimReading, Language
from mnemo.ports.embedder import Vectors
from mnemo.services.commands import AddResult
from mnemo.services.memory.add.decide import Decision
from mnemo.services.memory.erase import Erasing
from mnemo.services.memory.parts import MemoryParts

RELATED_COSINE = 0.2  # below it, two facts of no shared slot, word or claim are about different things
Sources = dict[str, tuple[SourceMessage, ...]]  # a fact's text -> the sources it cites


class Applying:
    def __init__(self, parts: MemoryParts, erasing: Erasing) -> None:
        self._parts = parts
        self._erasing = erasing

    def embedded_for(self, decisions: list[Decision], refs: dict[str, MemoryRecord]) -> dict[str, Vectors]:
        """Every embedding the decisions need, before the first write: a provider failing now leaves nothing
        half-done, so the add can be tried again whole."""
        updates = [d.text for d in _naming(decisions, Event.UPDATE, refs)]
        retired = [refs[d.ref].text for d in _naming(decisions, Event.DELETE, refs) if d.ref is not None]
        new_texts = [d.text for d in decisions if d.event is Event.ADD] if retired else []
        wanted = list(dict.fromkeys([*updates, *retired, *new_texts]))
        return dict(zip(wanted, self._parts.embed(wanted), strict=True)) if wanted else {}

    def apply(
        self,
        decisions: list[Decision],
        refs: dict[str, MemoryRecord],
        fresh: list[AddResult],
        embedded: dict[str, Vectors],
        sources: Sources,
        facts: list[str],
    ) -> list[AddResult]:
        """The UPDATE and DELETE decisions, on the memories as they are now (one still active). An UPDATE adds the
        new fact's sources to the memory's; a DELETE is superseded by the new memory of the fact the LLM names.
        `fresh`: the memories this add stored."""
        results: list[AddResult] = []
        with self._parts.write_lock:
            for decision in decisions:
                target = refs.get(decision.ref or "")
                current = None if target is None else self._parts.store.get(target.id)
                if current is None or current.state is not LifecycleState.ACTIVE:
                    continue
                if decision.event is Event.UPDATE and decision.text != current.text:
                    cited = sources.get(decision.text, ())
                    results.append(self._rewrite(current, decision.text, embedded[decision.text], cited))
                elif decision.event is Event.DELETE:
                    named = facts[decision.replaced_by] if decision.replaced_by is not None else None
                    retired = self._retire(current, fresh, embedded, named)
                    results.extend([retired] if retired is not None else [])
        return results

    def _rewrite(
        self, current: MemoryRecord, text: str, vector: Vectors, cited: tuple[SourceMessage, ...]
    ) -> AddResult:
        """The memory with a new text, citing what it cited and the new sources (its history keeps the old text)."""
        updated = replace(current.with_text(text), sources=tuple(dict.fromkeys((*current.sources, *cited))))
        self._parts.store.replace(updated, vector, HistoryEntry.of(Event.UPDATE, updated, current.text, text))
        self._parts.index.upsert([updated], vector[None, :])
        return AddResult(updated, Event.UPDATE, previous_memory=current.text)

    def _retire(
        self, record: MemoryRecord, replacements: list[AddResult], embedded: dict[str, Vectors], named: str | None
    ) -> AddResult | None:
        """A memory the new facts made false: superseded by the new memory that replaced it, or deleted when none
        did. The one replacing it: the new memory of the fact the LLM named (`named`), else one whose claim
        conflicts with the memory's (the language pack's claims), else the closest. None, and the memory kept, when
        that one is about something else (`related`): a wrong DELETE must not hide a true fact behind an unrelated
        one. `embedded`: the vectors of the texts involved, computed before the add wrote anything."""
        if not replacements:
            self._erasing.erase([record])
            return AddResult(record, Event.DELETE)
        history = HistoryEntry.of(Event.DELETE, record, record.text, None)
        missing = [t for t in (record.text, *[r.record.text for r in replacements]) if t not in embedded]
        if missing:  # a text that changed since the decision was made
            embedded = {**embedded, **dict(zip(missing, self._parts.embed(missing), strict=True))}
        target = embedded[record.text]
        closest = replacements[int(np.argmax([embedded[r.record.text] @ target for r in replacements]))].record
        successor = _successor(self._parts.language, record, [r.record for r in replacements], named) or closest
        if not related(self._parts.language, record.text, successor.text, float(embedded[successor.text] @ target)):
            return None
        superseded = record.changed(state=LifecycleState.SUPERSEDED, replaced_by=successor.id)
        self._parts.store.replace(superseded, None, history)
        self._parts.index.upsert([superseded], target[None, :])  # still found by a read that asks for superseded ones
        return AddResult(superseded, Event.DELETE)


def related(language: Language, old: str, new: str, cosine: float) -> bool:
    """Whether a new fact can be what made an old memory false: both speak of one part of a life (home, work,
    partner, ...: the language pack's slots), their claims conflict, they share a content word, or their embeddings
    are not far apart."""
    if cosine >= RELATED_COSINE or language.slots(old) & language.slots(new):
        return True
    if set(language.content_words(old)) & set(language.content_words(new)):
        return True
    return any(n.conflicts(o) for n in language.claims(new) for o in language.claims(old))


def _naming(decisions: list[Decision], event: Event, refs: dict[str, MemoryRecord]) -> list[Decision]:
    """The decisions of `event` that name one of the memories shown to the LLM."""
    return [d for d in decisions if d.event is event and d.ref in refs]


def _successor(
    language: ClaimReading, record: MemoryRecord, candidates: list[MemoryRecord], named: str | None
) -> MemoryRecord | None:
    """The new memory that replaced `record`: the one of the fact the LLM named, else the first whose claim
    conflicts with the record's; None when neither says."""
    for candidate in candidates:
        if named is not None and candidate.text == named:
            return candidate
    old = language.claims(record.text)
    return next((c for c in candidates if any(n.conflicts(o) for n in language.claims(c.text) for o in old)), None)
