"""An agent's notes about its user, written without a subject, are the user's facts when they are the add's one
message; chat that says nothing, requests and sentences about someone unnamed are not notes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.language import Turn
from mnemo.language.en import english
from mnemo.language.en.extraction.notes import agent_note

AT = datetime(2025, 3, 13, 10, 0, tzinfo=UTC)


def lone(message: str) -> list[str]:
    return [s.text for s in english().statements([Turn(0, "user", message)], AT)]


@pytest.mark.parametrize(
    ("note", "kept"),
    [
        ("Prefers metric units.", ["Prefers metric units."]),
        ("Likes jazz.", ["Likes jazz."]),
        ("Alice lives in Lisbon.", ["Alice lives in Lisbon."]),
        ("Allergic to shellfish.", ["Allergic to shellfish."]),
        ("Works as a nurse at St Mary's.", ["Works as a nurse at St Mary's."]),
        ("Has two cats, Tom and Jerry.", ["Has two cats, Tom and Jerry."]),
        ("Prefers concise answers; dislikes emojis.", ["Prefers concise answers", "Dislikes emojis."]),
    ],
)
def test_a_lone_note_without_a_subject_is_the_users_fact(note: str, kept: list[str]) -> None:
    assert lone(note) == kept


@pytest.mark.parametrize(
    "chat",
    [
        "ok thanks",
        "Thanks, that helps!",
        "Sounds good.",
        "Hello there!",
        "Great, see you tomorrow.",
        "She is a nurse.",
        "The weather is lovely today.",
        "Can you remind me tomorrow?",
        "Please summarise this article.",
        "That makes sense, thank you.",
    ],
)
def test_a_lone_message_that_is_no_note_gives_nothing(chat: str) -> None:
    assert lone(chat) == []


def test_the_same_sentence_in_a_conversation_is_not_read_as_a_note() -> None:
    turns = [Turn(0, "assistant", "Any preferences?"), Turn(1, "user", "Prefers metric units.")]

    assert [s.text for s in english().statements(turns, AT)] == []


def test_a_note_cites_its_sentence() -> None:
    [statement] = english().statements([Turn(0, "user", "Hi. Likes jazz.")], AT)

    assert statement.text == "Likes jazz."
    assert statement.message_index == 0
    assert [(c.start, c.end) for c in statement.cited] == [(4, 15)]


def test_a_lowercase_sentence_is_a_note_only_after_a_semicolon() -> None:
    assert agent_note("likes jazz.") is None
    assert agent_note("likes jazz.", continued=True) == "Likes jazz."
