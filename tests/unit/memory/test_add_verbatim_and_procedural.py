"""The two adds that extract nothing: verbatim (services/memory/add/verbatim.py) and the LLM's summary of an agent's
execution history (services/memory/add/procedural.py)."""

from __future__ import annotations

from typing import Any

import pytest

from mnemo.domain.memory import Event, Scope, SourceMessage
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand, Message
from mnemo.services.memory.add.categorizing import Categorizing
from mnemo.services.memory.add.filing import Filing
from mnemo.services.memory.add.inserting import Inserting
from mnemo.services.memory.add.merging import Merging
from mnemo.services.memory.add.pending import PendingAdd
from mnemo.services.memory.add.procedural import add_procedural
from mnemo.services.memory.add.prompts import PROCEDURAL_SUMMARY
from mnemo.services.memory.add.verbatim import add_verbatim
from tests.unit.memory.fakes import ALICE, Namespace, ScriptedLLM

BOT = Scope(user_id="alice", agent_id="bot")
HISTORY = [Message("user", "Book a table."), Message("assistant", "Booked at 8pm, id 42.")]


def filing(ns: Namespace) -> Filing:
    return Filing(ns.parts, Categorizing(ns.parts), Merging(ns.parts), Inserting(ns.parts))


def test_each_message_but_the_systems_and_the_empty_ones_is_stored_as_said(ns: Namespace) -> None:
    messages = [
        Message("system", "Be nice."),
        Message("user", "  I like tea.  ", "ana"),
        Message("assistant", "   "),
        Message("assistant", "Noted."),
    ]

    results = add_verbatim(PendingAdd(AddCommand(messages, ALICE, infer=False), ()), filing(ns))

    assert [(r.record.text, r.event) for r in results] == [("I like tea.", Event.ADD), ("Noted.", Event.ADD)]
    tea = results[0].record
    assert (tea.actor_id, tea.role) == ("ana", "user")
    assert tea.sources == (SourceMessage("user", "  I like tea.  ", 1, "ana"),)


def test_a_procedural_memory_is_the_llms_summary_citing_every_message(ns: Namespace) -> None:
    llm = ScriptedLLM("  Task: book a table. Done: booked at 8pm (id 42).  ")
    command = AddCommand(HISTORY, BOT, metadata={"k": 1}, procedural=True)

    (result,) = add_procedural(PendingAdd(command, ()), llm, filing(ns))

    assert result.record.text == "Task: book a table. Done: booked at 8pm (id 42)."
    assert result.record.metadata == {"k": 1, "memory_type": "procedural_memory"}
    assert [s.index for s in result.record.sources] == [0, 1]
    (asked,) = llm.asked
    assert asked[0] == {"role": "system", "content": PROCEDURAL_SUMMARY}
    assert asked[1]["content"] == "user: Book a table.\nassistant: Booked at 8pm, id 42."


def test_the_adds_own_instructions_replace_the_summary_prompt_and_an_empty_summary_stores_nothing(
    ns: Namespace,
) -> None:
    llm = ScriptedLLM("   ")
    command = AddCommand(HISTORY, BOT, procedural=True, instructions="List the steps.")
    assert add_procedural(PendingAdd(command, ()), llm, filing(ns)) == []
    assert llm.asked[0][0]["content"] == "List the steps."
    assert ns.memories() == {}


@pytest.mark.parametrize(
    ("scope", "llm", "message"),
    [(ALICE, ScriptedLLM("x"), "agent_id"), (BOT, None, "LLM")],
)
def test_a_procedural_add_needs_an_agent_and_an_llm(ns: Namespace, scope: Scope, llm: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        add_procedural(PendingAdd(AddCommand(HISTORY, scope, procedural=True), ()), llm, filing(ns))
