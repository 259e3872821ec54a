"""What a delete erases, as values (mnemo.domain.erasure, mnemo.domain.provenance), and the MemoryService's delete
paths: one erasure per operation, told to `on_erased` with every text of the memories (history texts included)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import cast

import numpy as np

from mnemo.adapters.sqlite.database import Database
from mnemo.adapters.sqlite.memory_index import LocalMemoryIndex
from mnemo.adapters.sqlite.memory_store import SqliteMemoryStore
from mnemo.adapters.sqlite.profile_store import SqliteProfileStore
from mnemo.domain.erasure import (
    Erasure,
    redacted_sources,
    scrubbed,
    scrubbed_event,
    scrubbed_profile,
    textless,
)
from mnemo.domain.filters import parse
from mnemo.domain.memory import Event, HistoryEntry, MemoryRecord, Scope, SourceMessage, new_id
from mnemo.domain.profiles import Profile, ProfileStatus
from mnemo.domain.provenance import sibling_links
from mnemo.domain.tenancy import EventStatus, PlatformEvent
from mnemo.language.en import english
from mnemo.ports.embedder import Vectors
from mnemo.ports.tenancy_store import EventStore, ProjectRecordStore
from mnemo.services.commands import AddCommand, Message, UpdateCommand
from mnemo.services.memory import MemoryService
from mnemo.services.platform.tenancy.erasure import ProjectErasure
from mnemo.services.providers import ActiveProviders, ProviderSet

T0 = datetime(2024, 5, 1, tzinfo=UTC)


def record(text: str, *sources: SourceMessage) -> MemoryRecord:
    return MemoryRecord.create(text, Scope(user_id="alice"), at=T0, sources=sources)


def test_an_erasure_holds_every_text_of_the_memories_longest_first() -> None:
    message = SourceMessage("user", "I moved to Lisbon. I like tea.", 0)
    doomed = record("I moved to Lisbon.", message)
    erasure = Erasure.of([doomed], ["I moved to Porto.", "", "  "])
    assert erasure.ids == {doomed.id}
    assert erasure.texts == ("I moved to Lisbon. I like tea.", "I moved to Lisbon.", "I moved to Porto.")
    assert erasure.cut("She said: I moved to Porto. Then tea.") == "She said:  Then tea."
    assert erasure.cut("I moved to Lisbon.") == ""
    assert erasure.named_in(f'{{"id": "{doomed.id}"}}') and not erasure.named_in(f'{{"id": "{new_id()}"}}')


def test_a_short_text_is_erased_only_where_it_is_the_whole_string() -> None:
    erasure = Erasure(frozenset({"x"}), ("ok",))
    assert erasure.cut("ok") == "" and erasure.cut("ok, I'll book it") == "ok, I'll book it"


def test_scrubbing_cuts_texts_everywhere_and_drops_named_entries_only_when_asked() -> None:
    gone, kept = new_id(), new_id()
    erasure = Erasure(frozenset({gone}), ("I moved to Lisbon.",))
    value = {"list": [{"id": gone, "memory": "I moved to Lisbon."}, {"id": kept, "memory": "Tea."}], "n": 2}
    assert scrubbed(value, erasure) == {"list": [{"id": gone, "memory": ""}, {"id": kept, "memory": "Tea."}], "n": 2}
    assert scrubbed(value, erasure, drop_named=True) == {"list": [{"id": kept, "memory": "Tea."}], "n": 2}


def test_an_event_that_does_not_name_the_memory_is_left_alone() -> None:
    gone = new_id()
    erasure = Erasure(frozenset({gone}), ("I moved to Lisbon.",))
    payload = {"messages": [{"role": "user", "content": "I moved to Lisbon.", "name": None}]}
    event = PlatformEvent(new_id(), "p", "ADD", EventStatus.SUCCEEDED, payload, T0, T0, results=[])
    assert scrubbed_event(event, erasure) is None
    named = event.changed(results=[{"id": gone, "data": {"memory": "I moved to Lisbon."}, "event": "ADD"}])
    clean = scrubbed_event(named, erasure)
    assert clean is not None and clean.payload["messages"][0]["content"] == ""
    assert clean.results == [{"id": gone, "data": {"memory": ""}, "event": "ADD"}]


def test_the_add_or_import_item_that_made_an_erased_memory_loses_its_metadata() -> None:
    gone, kept = new_id(), new_id()
    erasure = Erasure(frozenset({gone}), ("Tea.",))
    add = {"messages": [{"role": "user", "content": "Tea."}], "metadata": {"secret": 7}}
    event = PlatformEvent(new_id(), "p", "ADD", EventStatus.SUCCEEDED, add, T0, T0, results=[{"id": gone}])
    clean = scrubbed_event(event, erasure)
    assert clean is not None and "metadata" not in clean.payload and event.payload["metadata"] == {"secret": 7}
    items = [{"index": i, "add": {"messages": [], "metadata": {"n": i}}} for i in range(2)]
    results = [{"index": 0, "memory_ids": [gone]}, {"index": 1, "memory_ids": [kept]}]
    imported = PlatformEvent(new_id(), "p", "IMPORT", EventStatus.SUCCEEDED, {"items": items}, T0, T0, results=results)
    clean = scrubbed_event(imported, erasure)
    assert clean is not None
    assert [item["add"].get("metadata") for item in clean.payload["items"]] == [None, {"n": 1}]


def test_a_profile_loses_the_properties_drawn_from_the_memory_and_its_quotes() -> None:
    gone, kept = new_id(), new_id()
    profile = Profile(
        "p",
        "user",
        "alice",
        ProfileStatus.SUCCEEDED,
        profile={"location": "I moved to Lisbon.", "drinks": "I like tea. I moved to Lisbon."},
        sources={"location": [gone], "drinks": [kept]},
    )
    clean = scrubbed_profile(profile, Erasure(frozenset({gone}), ("I moved to Lisbon.",)))
    assert clean is not None
    assert clean.profile == {"drinks": "I like tea. "} and clean.sources == {"drinks": [kept]}
    assert scrubbed_profile(clean, Erasure(frozenset({new_id()}), ("Nothing said.",))) is None


class ClaimedWhileScrubbed(SqliteProfileStore):
    """A profile store where the regeneration a delete queued is claimed right after the scrub read the profile."""

    def get_profile(self, project_id: str, entity_type: str, entity_id: str) -> Profile | None:
        read = super().get_profile(project_id, entity_type, entity_id)
        self.claim_generation(project_id, entity_type, entity_id, at=T0, reclaim_before=T0, changed_at=T0)
        return read


class NoRecords:
    def erase_from_events(self, project_id: str, erasure: Erasure) -> int:
        return 0

    def erase_from_exports(self, project_id: str, erasure: Erasure) -> int:
        return 0


def test_a_delete_scrubbing_a_profile_keeps_the_regeneration_claimed_meanwhile(tmp_path: Path) -> None:
    gone, kept = record("I moved to Lisbon."), record("I like tea.")
    store = ClaimedWhileScrubbed(Database(tmp_path / "p.sqlite3"))
    good = Profile("p", "user", "alice", ProfileStatus.SUCCEEDED, {"city": "Lisbon", "drink": "tea"}, {}, None, T0)
    store.save_profile(replace(good, sources={"city": [gone.id], "drink": [kept.id]}))
    erasure = ProjectErasure(cast(EventStore, NoRecords()), cast(ProjectRecordStore, NoRecords()), profiles=store)
    erasure.erased("p", Erasure.of([gone]), [gone])
    stored = store.get_profile("p", "user", "alice")
    assert stored is not None
    assert (stored.profile, stored.sources) == ({"drink": "tea"}, {"drink": [kept.id]})
    assert (stored.status, stored.queued_at, stored.changed_at) == (ProfileStatus.PENDING, T0, T0)  # regenerated


def test_sources_holding_an_erased_text_are_redacted_in_place() -> None:
    shared, own = SourceMessage("user", "I moved to Lisbon. I like tea.", 0, "ana"), SourceMessage("user", "Hi.", 1)
    erasure = Erasure(frozenset({"x"}), ("I moved to Lisbon.",))
    assert redacted_sources((shared, own), erasure) == (SourceMessage("user", "", 0, "ana", redacted=True), own)
    assert redacted_sources((own,), erasure) is None
    entry = HistoryEntry.of(Event.UPDATE, record("b"), "a", "b")
    assert (textless(entry).old_memory, textless(entry).new_memory, textless(entry).event) == (None, None, Event.UPDATE)


def test_memories_of_one_insert_are_linked_by_the_messages_they_share() -> None:
    message, other = SourceMessage("user", "A. B.", 0), SourceMessage("user", "C.", 1)
    a, b, c, d = record("A.", message), record("B.", message), record("C.", other), record("D.", message, other)
    assert sibling_links([a, b, c, d]) == {
        a.id: [b.id, d.id],
        b.id: [a.id, d.id],
        d.id: [a.id, b.id, c.id],
        c.id: [d.id],
    }
    assert sibling_links([a, c]) == {}


class Embedder:
    name = "stub"
    dimension = 8

    def embed(self, texts: list[str]) -> Vectors:
        out: Vectors = np.ones((len(texts), self.dimension), dtype=np.float32) / np.sqrt(self.dimension)
        return out


def test_each_delete_operation_is_one_erasure_with_every_text_of_its_memories(tmp_path: Path) -> None:
    db = Database(tmp_path / "m.sqlite3")
    service = MemoryService(
        SqliteMemoryStore(db),
        LocalMemoryIndex(db, 8, facets=english()),
        ActiveProviders(ProviderSet(embedder=Embedder())),
        language=english(),
    )
    told: list[tuple[Erasure, list[str]]] = []

    def on_erased(erasure: Erasure, records: Sequence[MemoryRecord]) -> None:
        told.append((erasure, [r.id for r in records]))

    service.on_erased = on_erased
    added = service.add(
        AddCommand([Message("user", f"Fact number {i}.") for i in range(3)], Scope(user_id="u"), infer=False)
    )
    ids = [r.record.id for r in added]
    service.add(AddCommand([Message("user", "A fact of bob.")], Scope(user_id="bob"), infer=False))
    service.update(UpdateCommand(ids[0], text="Fact number zero."))

    service.delete(ids[0])
    assert len(told) == 1 and told[0][1] == [ids[0]]
    assert set(told[0][0].texts) >= {"Fact number 0.", "Fact number zero."}

    assert service.delete_all(parse({"user_id": "u"})) == 2
    assert len(told) == 2 and sorted(told[1][1]) == sorted(ids[1:])
    assert service.delete_many([ids[0], "no-such-id"]) == []
    assert len(told) == 2  # nothing deleted, nothing told
    db.close()
