"""Where an add decides ADD, UPDATE, DELETE or NONE (services/memory/add/decide.py): what the LLM is shown, and which
of its decisions are trusted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mnemo.domain.memory import Event
from mnemo.errors import ProviderError
from mnemo.language.en import english
from mnemo.services.memory.add.decide import Decision, decide, with_unmentioned
from tests.unit.memory.fakes import ScriptedLLM

EXISTING = {"0": "Lives in Paris", "1": "Likes tea"}
FACTS = ["Lives in Porto", "Likes green tea"]


def decided(*items: Any) -> list[Decision]:
    return decide(ScriptedLLM({"memory": list(items)}), EXISTING, FACTS)


def test_the_llm_is_shown_the_memories_with_their_temporary_ids_and_the_facts() -> None:
    llm = ScriptedLLM({"memory": []})
    decide(llm, EXISTING, FACTS)
    (system, shown) = llm.asked[0]
    assert system["role"] == "system" and json.dumps(FACTS) not in system["content"]
    prompt = shown["content"]
    assert json.dumps([{"id": "0", "text": "Lives in Paris"}, {"id": "1", "text": "Likes tea"}]) in prompt
    assert json.dumps(FACTS) in prompt


def test_each_event_is_read_with_what_it_needs() -> None:
    assert decided(
        {"id": "new", "text": " Lives in Porto ", "event": "add"},
        {"id": "1", "text": "Likes green tea", "event": "UPDATE"},
        {"id": "0", "text": "Lives in Paris", "event": "DELETE", "replaced_by": 0},
        {"id": 1, "text": "Likes tea", "event": "NONE"},
    ) == [
        Decision(Event.ADD, "Lives in Porto", None),
        Decision(Event.UPDATE, "Likes green tea", "1"),
        Decision(Event.DELETE, "Lives in Paris", "0", 0),
        Decision(Event.NONE, "Likes tea", "1"),
    ]


def test_what_cannot_be_trusted_is_dropped() -> None:
    assert (
        decided(
            "not an object",
            {"id": "0", "event": "FORGET"},
            {"event": "ADD", "text": ""},
            {"id": "7", "text": "Made up", "event": "UPDATE"},
            {"id": "1", "text": "", "event": "UPDATE"},
        )
        == []
    )


@pytest.mark.parametrize("by", [5, -1, True, "0", None])
def test_a_delete_names_its_replacement_only_by_the_number_of_a_fact(by: Any) -> None:
    (delete,) = decided({"id": "0", "text": "Lives in Paris", "event": "DELETE", "replaced_by": by})
    assert delete.replaced_by is None


def test_a_reply_without_a_list_is_asked_for_once_more_then_is_a_provider_error() -> None:
    llm = ScriptedLLM({"memory": {"id": "0"}}, {"memory": {"id": "0"}})
    with pytest.raises(ProviderError, match="'memory' is not a list"):
        decide(llm, EXISTING, FACTS)
    assert len(llm.asked) == 2


def test_a_fact_the_reply_leaves_out_is_added_rather_than_lost() -> None:
    decisions = [
        Decision(Event.UPDATE, "Lives in Porto, Portugal", "0"),
        Decision(Event.DELETE, "", "1", replaced_by=2),
    ]
    facts = ["Moved to Porto", "Drinks green tea", "Sold the car"]

    completed = with_unmentioned(english(), decisions, facts)

    assert completed == [*decisions, Decision(Event.ADD, "Drinks green tea", None)]


def test_an_update_that_repeats_the_memory_is_read_as_none() -> None:
    assert decided({"id": "1", "text": "Likes tea", "event": "UPDATE"}) == [Decision(Event.NONE, "Likes tea", "1")]


def test_a_fact_left_out_that_a_memory_shown_already_states_is_no_add() -> None:
    # Given a reply that names no change (the model leaves out what it has nothing to change)
    # When the facts are completed against the memories shown
    completed = with_unmentioned(english(), [], ["Likes tea", "Lives in Porto"], EXISTING)

    # Then the fact a memory already states is NONE on that memory, and the new one is still added
    assert completed == [Decision(Event.NONE, "Likes tea", "1"), Decision(Event.ADD, "Lives in Porto", None)]
