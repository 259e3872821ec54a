"""An inferred add without an LLM (services/memory/add/statements.py): the extractor's statements, each citing its
sentence, not stored again when they repeat a memory, the current fact winning over what they make out of date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from mnemo.domain.memory import Event, LifecycleState
from mnemo.services.commands import AddCommand, AddResult, Message
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.outdating import Outdating
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.add.statements import StatementsAdd
from mnemo.services.memory.add.topics import Topics
from tests.unit.memory.fakes import ALICE, Namespace

T0 = datetime(2025, 3, 1, tzinfo=UTC)


def add(ns: Namespace, text: str, at: datetime = T0, **options: object) -> list[AddResult]:
    parts = ns.parts
    statements = StatementsAdd(
        parts,
        Filing(parts, Categorizing(parts), Merging(parts), Inserting(parts)),
        Topics(parts),
        Outdating(parts),
    )
    command = AddCommand([Message("user", text)], ALICE, timestamp=at, **options)  # type: ignore[arg-type]
    return statements.add(PendingAdd(command, ()))


def test_each_statement_is_stored_citing_its_sentence(ns: Namespace) -> None:
    results = add(ns, "I live in Paris. I love hiking in the Alps.")

    assert [(r.record.text, r.event) for r in results] == [
        ("I live in Paris.", Event.ADD),
        ("I love hiking in the Alps.", Event.ADD),
    ]
    hiking = results[1].record
    assert hiking.attributed_to == "user"
    assert [(s.index, s.content, s.span) for s in hiking.sources] == [(0, "I love hiking in the Alps.", (17, 43))]


def test_a_statement_repeating_a_memory_is_not_stored_again(ns: Namespace) -> None:
    add(ns, "I love hiking in the Alps.")
    assert add(ns, "I love hiking in the Alps.", T0 + timedelta(days=1)) == []
    assert list(ns.memories()) == ["I love hiking in the Alps."]


def test_small_talk_stores_nothing_and_embeds_nothing(ns: Namespace) -> None:
    assert add(ns, "ok thx") == []
    assert ns.embedder.calls == []


def test_the_newer_statement_outdates_the_memory_it_replaces(ns: Namespace) -> None:
    (paris,) = add(ns, "I live in Paris.")
    (porto,) = add(ns, "I live in Porto.", T0 + timedelta(days=30))

    stored = ns.memories()
    assert (stored["I live in Paris."].state, stored["I live in Paris."].replaced_by) == (
        LifecycleState.OUTDATED,
        porto.record.id,
    )
    assert paris.record.id == stored["I live in Paris."].id


def test_statements_off_the_adds_topics_are_not_stored(ns: Namespace) -> None:
    results = add(ns, "I live in Paris. I love hiking in the Alps.", includes="hiking")
    assert [r.record.text for r in results] == ["I love hiking in the Alps."]
