"""The reads of one namespace (services/memory/reads.py) over the real SQLite store."""

from __future__ import annotations

import pytest

from mnemo.domain import filters as f
from mnemo.domain.memory import CURRENT_AND_OUTDATED, Event, LifecycleState
from mnemo.errors import NotFoundError
from mnemo.services.memory.reads import Reads, stored
from tests.unit.memory.fakes import BOB, Namespace

ALICE_FILTER = f.Condition("user_id", "eq", "alice")


def test_a_memory_is_read_by_its_id_and_an_unknown_id_is_not_found(ns: Namespace) -> None:
    tea = ns.put("Likes tea")
    assert Reads(ns.store).get(tea.id) == stored(ns.store, tea.id) == tea
    with pytest.raises(NotFoundError, match="no-such-id"):
        Reads(ns.store).get("no-such-id")


def test_a_list_and_a_count_see_the_states_asked_for(ns: Namespace) -> None:
    ns.put("Lives in Lisbon")
    ns.put("Lives in Paris", state=LifecycleState.OUTDATED)
    ns.put("Lives in Oslo", BOB)
    reads = Reads(ns.store)

    listed = reads.get_all(ALICE_FILTER, top_k=None, show_expired=False, offset=0, states=CURRENT_AND_OUTDATED)

    assert {r.text for r in listed} == {"Lives in Lisbon", "Lives in Paris"}
    assert reads.count(ALICE_FILTER) == 1
    assert reads.count(ALICE_FILTER, states=CURRENT_AND_OUTDATED) == 2
    assert {(c.type, c.id, c.total_memories) for c in reads.entity_counts()} >= {
        ("user", "alice", 1),
        ("user", "bob", 1),
    }


def test_a_history_is_read_and_an_unknown_memory_has_none(ns: Namespace) -> None:
    tea = ns.put("Likes tea")
    assert [e.event for e in Reads(ns.store).history(tea.id)] == [Event.ADD]
    with pytest.raises(NotFoundError):
        Reads(ns.store).history("no-such-id")
