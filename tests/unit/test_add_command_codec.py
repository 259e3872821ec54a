"""The add's one JSON form (the payload of a platform add event): what 8ebec85 wrote is read the same, every
field round-trips, and what is not an add is refused with a message that says why."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from mnemo.domain.memory import Scope
from mnemo.errors import ValidationError
from mnemo.services.commands import AddCommand, Message

# The payload of an add event as the version before this one stored it (AddRequest.payload()).
STORED_BEFORE: dict[str, Any] = {
    "messages": [
        {"role": "user", "content": "I moved to Lisbon", "name": "ana"},
        {"role": "assistant", "content": "Nice!", "name": None},
    ],
    "user_id": "alice",
    "run_id": "trip-1",
    "metadata": {"source": "chat", "n": 2},
    "infer": True,
    "expiration_date": "2030-01-31",
    "custom_instructions": "Only remember places.",
    "custom_categories": [{"travel": "trips and moves"}, {"home": ""}],
    "multilingual": True,
    "timestamp": 1700000000,
}


def test_a_payload_stored_by_the_previous_version_is_read_as_the_same_add() -> None:
    command = AddCommand.from_json(STORED_BEFORE)
    assert command == AddCommand(
        messages=[Message("user", "I moved to Lisbon", "ana"), Message("assistant", "Nice!", None)],
        scope=Scope(user_id="alice", run_id="trip-1"),
        metadata={"source": "chat", "n": 2},
        infer=True,
        expiration_date=date(2030, 1, 31),
        instructions="Only remember places.",
        custom_categories=(("travel", "trips and moves"), ("home", "")),
        timestamp=datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC),
        multilingual=True,
    )
    assert command.to_json() == STORED_BEFORE  # written back, key for key


def test_every_field_round_trips() -> None:
    command = AddCommand(
        messages=[Message("user", "Ich wohne in Köln ☕")],
        scope=Scope(agent_id="bot", app_id="shop"),
        metadata={"nested": {"a": [1, 2.5, None]}},
        infer=False,
        procedural=True,
    )
    assert AddCommand.from_json(command.to_json()) == command
    assert "procedural" not in AddCommand.from_json({"messages": [{"role": "user", "content": "x"}]}).to_json()


def test_a_zero_timestamp_means_none_as_before() -> None:
    assert AddCommand.from_json({**STORED_BEFORE, "timestamp": 0}).timestamp is None


@pytest.mark.parametrize(
    ("payload", "named"),
    [
        ({}, "messages"),
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "user"}]}, "messages.0.content"),
        ({**STORED_BEFORE, "custom_categories": ["travel"]}, "custom_categories.0"),
        ({**STORED_BEFORE, "expiration_date": "soon"}, "expiration_date"),
        ({**STORED_BEFORE, "surprise": 1}, "surprise"),
    ],
)
def test_what_is_not_an_add_is_refused_naming_the_field(payload: dict[str, Any], named: str) -> None:
    with pytest.raises(ValidationError, match=f"Not an add: .*{named}"):
        AddCommand.from_json(payload)


def test_the_size_check_counts_messages_and_metadata() -> None:
    AddCommand([Message("user", "x" * 99_000)], Scope(user_id="a")).check_size()
    with pytest.raises(ValidationError, match="at most 100,000"):
        AddCommand([Message("user", "x" * 99_000)], Scope(user_id="a"), metadata={"k": "y" * 2_000}).check_size()
