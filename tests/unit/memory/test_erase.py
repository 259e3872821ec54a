"""Where a delete erases (services/memory/erase.py): the store, the index and the access log, one purge and one
erasure told per operation, and what a failure beside the delete leaves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from mnemo.domain import filters as f
from mnemo.domain.erasure import Erasure
from mnemo.domain.memory import Event, MemoryRecord
from mnemo.errors import NotFoundError, ValidationError
from mnemo.services.memory.erase import Erasing
from tests.unit.memory.fakes import BOB, ListAccessLog, Namespace

Told = list[tuple[Erasure, list[str]]]


def erasing(ns: Namespace, told: Told) -> Erasing:
    erasing = Erasing(ns.parts)

    def on_erased(erasure: Erasure, records: Sequence[MemoryRecord]) -> None:
        told.append((erasure, [r.id for r in records]))

    erasing.on_erased = on_erased
    return erasing


def test_a_delete_removes_the_memory_and_tells_what_it_erased(make_namespace: Any) -> None:
    log = ListAccessLog()
    ns = make_namespace(accesses=log)
    tea, coffee = ns.put("Likes tea"), ns.put("Likes coffee")
    told: Told = []

    erasing(ns, told).delete(tea.id)

    assert list(ns.memories()) == ["Likes coffee"]
    assert [h.memory_id for h in ns.index.search(ns.parts.embed_query("Likes tea"), "", f.And(()), 5)] == [coffee.id]
    assert log.forgotten == [tea.id]
    ((erasure, ids),) = told
    assert ids == [tea.id] and "Likes tea" in erasure.texts
    assert [(e.event, e.old_memory) for e in ns.store.history(tea.id)][-1] == (Event.DELETE, None)
    with pytest.raises(NotFoundError):
        erasing(ns, told).delete(tea.id)


def test_a_delete_of_many_is_one_operation_of_the_stored_ones_in_the_order_asked(ns: Namespace) -> None:
    tea, coffee = ns.put("Likes tea"), ns.put("Likes coffee")
    told: Told = []

    assert erasing(ns, told).delete_many([coffee.id, "no-such-id", tea.id, coffee.id]) == [coffee.id, tea.id]
    assert [ids for _, ids in told] == [[coffee.id, tea.id]]
    assert erasing(ns, told).delete_many(["no-such-id"]) == []
    assert len(told) == 1  # nothing erased, nothing told


def test_a_delete_of_all_needs_an_owner_and_keeps_the_others(ns: Namespace) -> None:
    ns.put("Likes tea")
    ns.put("Likes coffee", BOB)
    with pytest.raises(ValidationError):
        erasing(ns, []).delete_all(f.Condition("app_id", "eq", "shop"))
    assert erasing(ns, []).delete_all(f.Condition("user_id", "eq", "alice")) == 1
    assert list(ns.memories(BOB)) == ["Likes coffee"]


def test_a_listener_or_an_access_log_failing_leaves_the_delete_standing(make_namespace: Any) -> None:
    log = ListAccessLog()
    ns = make_namespace(accesses=log)
    tea = ns.put("Likes tea")
    eraser = Erasing(ns.parts)

    def failing(erasure: Erasure, records: Sequence[MemoryRecord]) -> None:
        raise RuntimeError("the records beside are down")

    eraser.on_erased = failing
    log.failing = True
    eraser.delete(tea.id)
    assert ns.memories() == {}


def test_a_reset_removes_every_memory_and_clears_the_access_log(make_namespace: Any) -> None:
    log = ListAccessLog()
    ns = make_namespace(accesses=log)
    ns.put("Likes tea")
    ns.put("Likes coffee", BOB)
    Erasing(ns.parts).reset()
    assert ns.memories() == {} and ns.memories(BOB) == {} and ns.index.count() == 0 and log.cleared
