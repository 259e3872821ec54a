"""Filing an add's new memories (services/memory/add/filing.py): exact repeats answered as the memory already there,
merge on insert under the platform's policy, categories, and every embedding before the write."""

from __future__ import annotations

from typing import Any

from mnemo.domain.memory import Event, LifecycleState
from mnemo.services.commands import AddCommand, Message
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.policy import AddPolicy
from tests.unit.memory.fakes import ALICE, Namespace

PLATFORM = AddPolicy(categorize=True, merge=True)


def filing(ns: Namespace) -> Filing:
    return Filing(ns.parts, Categorizing(ns.parts), Merging(ns.parts), Inserting(ns.parts))


def add(*category_set: tuple[str, str]) -> PendingAdd:
    return PendingAdd(AddCommand([Message("user", "...")], ALICE), (), category_set)


def test_an_exact_repeat_is_answered_as_the_memory_already_stored_or_added(ns: Namespace) -> None:
    tea = ns.put("Likes tea")
    pending = add()
    new = [pending.record(t) for t in ("Likes tea", "Likes coffee", "Likes coffee")]

    results = filing(ns).store_new(new, pending)

    assert [(r.record.text, r.event) for r in results] == [
        ("Likes tea", Event.NONE),
        ("Likes coffee", Event.ADD),
        ("Likes coffee", Event.NONE),
    ]
    assert results[0].record.id == tea.id and results[2].record.id == results[1].record.id
    assert sorted(ns.memories()) == ["Likes coffee", "Likes tea"]


def test_nothing_to_file_embeds_nothing(ns: Namespace) -> None:
    assert filing(ns).store_new([], add()) == []
    assert ns.embedder.calls == []


def test_under_the_platform_policy_a_restated_fact_is_merged_and_each_memory_filed(make_namespace: Any) -> None:
    ns = make_namespace(policy=PLATFORM)
    tea = ns.put("Loves green tea")
    pending = add(("drinks", "tea coffee green drinks"), ("travel", "flights trips"))

    results = filing(ns).store_new([pending.record("The user loves green tea")], pending)

    (result,) = results
    assert result.event is Event.NONE
    assert (result.record.state, result.record.replaced_by) == (LifecycleState.MERGED, tea.id)
    assert result.record.categories == ("drinks",)
    assert ns.memories()["The user loves green tea"].state is LifecycleState.MERGED  # stored, hidden from reads


def test_without_merging_a_restated_fact_is_a_memory_of_its_own(ns: Namespace) -> None:
    ns.put("Loves green tea")
    pending = add()
    (result,) = filing(ns).store_new([pending.record("The user loves green tea")], pending)
    assert (result.event, result.record.state) == (Event.ADD, LifecycleState.ACTIVE)
