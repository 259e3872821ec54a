"""An inferred add with an LLM (services/memory/add/inferred.py): extract, show the related memories, decide, file the
new facts, apply the decisions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from mnemo.domain.memory import Event, LifecycleState
from mnemo.services.commands import AddCommand, AddResult, Message
from mnemo.services.memory.add.apply import Applying
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inferred import InferredAdd
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.outdating import Outdating
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.erase import Erasing
from mnemo.services.memory.parts import MemoryParts
from tests.unit.memory.fakes import ALICE, BOB, Namespace, ScriptedLLM

SAID = [Message("system", "Be brief."), Message("user", "I moved to Porto. I drink green tea now.")]


def inferred_add(parts: MemoryParts) -> InferredAdd:
    filing = Filing(parts, Categorizing(parts), Merging(parts), Inserting(parts))
    return InferredAdd(parts, filing, Applying(parts, Erasing(parts)), Outdating(parts))


def add(ns: Namespace, llm: ScriptedLLM, *category_set: tuple[str, str]) -> list[AddResult]:
    parts = ns.parts
    inferred = inferred_add(parts)
    return inferred.add(PendingAdd(AddCommand(SAID, ALICE), (), category_set), llm)


def facts(*texts: str, **fields: Any) -> dict[str, Any]:
    return {"facts": [{"text": t, "sources": [1], **fields} for t in texts]}


def test_the_llm_decides_against_the_active_memories_closest_to_the_facts(ns: Namespace) -> None:
    # Given memories of alice (one immutable, one merged) and of bob
    ns.put("Lives in Paris")
    ns.put("Drinks tea every morning", immutable=True)
    ns.put("Drinks black tea", state=LifecycleState.MERGED)
    ns.put("Lives in Oslo", BOB)
    llm = ScriptedLLM(facts("Lives in Porto", "Drinks green tea"), {"memory": []})

    add(ns, llm)

    # Then the decision lists only alice's active memories that may change
    decision_prompt = llm.asked[1][0]["content"]
    assert '"text": "Lives in Paris"' in decision_prompt
    assert "every morning" not in decision_prompt and "black" not in decision_prompt and "Oslo" not in decision_prompt


def test_new_facts_are_filed_citing_their_sentence_and_the_decisions_applied(ns: Namespace) -> None:
    paris = ns.put("Lives in Paris")
    llm = ScriptedLLM(
        facts("Lives in Porto", "Drinks green tea"),
        {
            "memory": [
                {"id": "new", "text": "Lives in Porto", "event": "ADD"},
                {"id": "new", "text": "Drinks green tea", "event": "ADD"},
                {"id": "0", "text": "Lives in Paris", "event": "DELETE", "replaced_by": 0},
            ]
        },
    )

    results = add(ns, llm)

    assert [(r.record.text, r.event) for r in results] == [
        ("Lives in Porto", Event.ADD),
        ("Drinks green tea", Event.ADD),
        ("Lives in Paris", Event.DELETE),
    ]
    porto = results[0].record
    assert (porto.attributed_to, [s.content for s in porto.sources]) == ("user", ["I moved to Porto."])
    stored = ns.memories()
    assert (stored[paris.text].state, stored[paris.text].replaced_by) == (LifecycleState.SUPERSEDED, porto.id)


def test_the_llms_categories_are_kept_and_nothing_is_decided_without_facts(ns: Namespace) -> None:
    food = ("food", "what one eats and drinks")
    llm = ScriptedLLM(
        facts("Drinks green tea", categories=["food"]),
        {"memory": [{"id": "new", "text": "Drinks green tea", "event": "ADD"}]},
    )
    (result,) = add(ns, llm, food)
    assert result.record.categories == ("food",)

    nothing = ScriptedLLM({"facts": []})
    assert add(ns, nothing) == []
    assert len(nothing.asked) == 1  # no decision asked


def test_the_current_fact_wins_even_when_the_llm_flags_no_change(ns: Namespace) -> None:
    # Given an older memory of where alice lives, and an LLM that adds the new home without a word about the old
    paris = ns.put("I live in Paris.")
    llm = ScriptedLLM(
        facts("I moved to Porto."), {"memory": [{"id": "new", "text": "I moved to Porto.", "event": "ADD"}]}
    )

    (result,) = add(ns, llm)

    # Then the rule that the current fact wins outdates the old one, as without an LLM
    stored = ns.memories()
    assert (stored[paris.text].state, stored[paris.text].replaced_by) == (LifecycleState.OUTDATED, result.record.id)


def test_a_new_fact_that_repeats_an_active_memory_is_answered_as_that_memory(ns: Namespace) -> None:
    tea = ns.put("Drinks green tea")
    llm = ScriptedLLM(
        facts("Drinks green tea now"), {"memory": [{"id": "new", "text": "drinks green tea", "event": "ADD"}]}
    )
    ns.embedder.same["drinks green tea"] = "Drinks green tea"

    (result,) = add(ns, llm)

    assert (result.record.id, result.event) == (tea.id, Event.NONE)
    assert list(ns.memories()) == ["Drinks green tea"]


def test_a_relative_date_the_llm_kept_is_written_as_the_date_it_means(ns: Namespace) -> None:
    llm = ScriptedLLM(facts("Moved to Porto last month"), {"memory": []})
    command = AddCommand(SAID, ALICE, timestamp=datetime(2026, 11, 29, tzinfo=UTC))
    inferred = inferred_add(ns.parts)

    (result,) = inferred.add(PendingAdd(command, (), ()), llm)

    assert result.record.text == "Moved to Porto in October 2026"


def test_the_llm_is_told_the_date_the_conversation_was_held(ns: Namespace) -> None:
    """An add of an old conversation (its `timestamp`) asks the LLM with that day as today: "in March" said then
    means that year's March, not the March after the day the add is made."""
    llm = ScriptedLLM(facts("Moves to Porto in March"), {"memory": []})
    command = AddCommand(SAID, ALICE, timestamp=datetime(2025, 1, 10, 9, tzinfo=UTC))

    inferred_add(ns.parts).add(PendingAdd(command, (), ()), llm)

    assert str(llm.asked[0][-1]["content"]).startswith("Today's date is 2025-01-10.\n")
