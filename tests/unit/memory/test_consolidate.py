"""What a Dream run decided, applied (services/memory/consolidate.py): merges, supersedes and synthesized memories,
on the memories as they are now and of the run's owner only."""

from __future__ import annotations

from typing import Any

from mnemo.domain.memory import Event, LifecycleState
from mnemo.services.commands import ConsolidateCommand, DreamAction, Merge, Supersede, Synthesis
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.consolidate import Consolidation
from mnemo.services.memory.policy import AddPolicy
from tests.unit.memory.fakes import ALICE, BOB, Namespace


def consolidation(ns: Namespace) -> Consolidation:
    parts = ns.parts
    return Consolidation(parts, Categorizing(parts), Merging(parts), Inserting(parts))


def test_a_merge_rewords_the_kept_memory_and_keeps_each_duplicate_merged_into_it(ns: Namespace) -> None:
    tea, again, green = ns.put("Likes tea"), ns.put("Enjoys tea"), ns.put("Likes green tea")
    command = ConsolidateCommand(ALICE, merges=(Merge(tea.id, (again.id, green.id, tea.id), "Likes tea, green too"),))

    changes = consolidation(ns).consolidate(command)

    assert [(c.record.text, c.event, c.action) for c in changes] == [
        ("Likes tea, green too", Event.UPDATE, DreamAction.MERGE),
        ("Enjoys tea", Event.DELETE, DreamAction.MERGE),
        ("Likes green tea", Event.DELETE, DreamAction.MERGE),
    ]
    assert changes[0].previous_memory == "Likes tea"
    stored = ns.memories()
    assert {t: (r.state, r.replaced_by) for t, r in stored.items() if t != "Likes tea, green too"} == {
        "Enjoys tea": (LifecycleState.MERGED, tea.id),
        "Likes green tea": (LifecycleState.MERGED, tea.id),
    }


def test_a_supersede_keeps_the_outdated_memory_superseded_by_the_current_one(ns: Namespace) -> None:
    paris, porto = ns.put("Lives in Paris"), ns.put("Lives in Porto")

    (change,) = consolidation(ns).consolidate(ConsolidateCommand(ALICE, supersedes=(Supersede(paris.id, porto.id),)))

    assert (change.event, change.action) == (Event.DELETE, DreamAction.SUPERSEDE)
    assert ns.memories()["Lives in Paris"].replaced_by == porto.id


def test_what_is_no_longer_active_immutable_or_of_another_owner_is_left_alone(ns: Namespace) -> None:
    tea, gone = ns.put("Likes tea"), ns.put("Enjoys tea", state=LifecycleState.MERGED)
    kept, bobs = ns.put("Lives in Paris", immutable=True), ns.put("Lives in Oslo", BOB)
    command = ConsolidateCommand(
        ALICE, merges=(Merge(tea.id, (gone.id, bobs.id)),), supersedes=(Supersede(kept.id, tea.id),)
    )
    assert consolidation(ns).consolidate(command) == []
    assert ns.memories()["Lives in Paris"].state is LifecycleState.ACTIVE


def test_a_synthesis_is_stored_from_two_memories_still_there_once(make_namespace: Any) -> None:
    ns = make_namespace(policy=AddPolicy(categorize=True))
    hikes, alps = ns.put("Hikes every weekend"), ns.put("Loves the Alps")
    command = ConsolidateCommand(
        ALICE,
        syntheses=(
            Synthesis("Spends weekends hiking in the Alps", (hikes.id, alps.id, hikes.id)),
            Synthesis("Spends weekends hiking in the Alps", (hikes.id, alps.id)),
            Synthesis("Likes mountains", (alps.id, "gone")),
            Synthesis("Hikes every weekend", (hikes.id, alps.id)),
        ),
        custom_categories=(("outdoors", "hiking mountains alps weekends"),),
    )

    (change,) = consolidation(ns).consolidate(command)

    assert (change.event, change.action) == (Event.ADD, DreamAction.SYNTHESIZE)
    synthesized = change.record
    assert (synthesized.synthesized, synthesized.derived_from) == (True, (hikes.id, alps.id))
    assert synthesized.categories == ("outdoors",)
    assert set(ns.memories()) == {"Hikes every weekend", "Loves the Alps", "Spends weekends hiking in the Alps"}


def test_every_embedding_is_computed_before_the_first_write(ns: Namespace) -> None:
    tea, again = ns.put("Likes tea"), ns.put("Enjoys tea")
    ns.embedder.calls.clear()
    consolidation(ns).consolidate(ConsolidateCommand(ALICE, merges=(Merge(tea.id, (again.id,), "Likes tea a lot"),)))
    ((new_text, *retiring),) = ns.embedder.calls  # one call, before anything was written
    assert (new_text, sorted(retiring)) == ("Likes tea a lot", ["Enjoys tea", "Likes tea"])
