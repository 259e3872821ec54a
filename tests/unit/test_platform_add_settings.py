"""A project's settings reach each add: the call's own instructions and categories win, else the project's, and the
memories of an agent alone get the project's agent_custom_instructions."""

from __future__ import annotations

from datetime import UTC, datetime

from mnemo.domain.memory import Scope
from mnemo.domain.tenancy import Project
from mnemo.services.commands import AddCommand, Message
from mnemo.services.platform.jobs.project_settings import with_project_settings

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PROJECT = Project(
    "p",
    "o",
    "project",
    T0,
    T0,
    custom_instructions="Remember food only.",
    agent_custom_instructions="Remember the agent's tools.",
)


def add(scope: Scope, instructions: str | None = None) -> AddCommand:
    return AddCommand(messages=[Message("user", "hello")], scope=scope, instructions=instructions)


def test_the_memories_of_an_agent_alone_get_the_agent_instructions() -> None:
    assert with_project_settings(add(Scope(agent_id="bot")), PROJECT).instructions == "Remember the agent's tools."


def test_a_users_memories_get_the_projects_instructions_even_with_an_agent() -> None:
    assert with_project_settings(add(Scope(user_id="alice")), PROJECT).instructions == "Remember food only."
    both = Scope(user_id="alice", agent_id="bot")
    assert with_project_settings(add(both), PROJECT).instructions == "Remember food only."


def test_the_calls_own_instructions_win_and_an_agent_without_its_own_gets_the_projects() -> None:
    assert with_project_settings(add(Scope(agent_id="bot"), "Mine."), PROJECT).instructions == "Mine."
    plain = PROJECT.changed(agent_custom_instructions=None)
    assert with_project_settings(add(Scope(agent_id="bot")), plain).instructions == "Remember food only."


def test_an_immutable_add_keeps_its_flag_through_its_event() -> None:
    command = AddCommand(messages=[Message("user", "I live in Paris.")], scope=Scope(user_id="alice"), immutable=True)
    assert command.to_json()["immutable"] is True
    assert AddCommand.from_json(command.to_json()).immutable
    assert "immutable" not in add(Scope(user_id="alice")).to_json()  # the usual add's event is unchanged
    assert not AddCommand.from_json(add(Scope(user_id="alice")).to_json()).immutable
