"""A question about the user, asked by name, read in the first person as their memories are written."""

from __future__ import annotations

import pytest

from mnemo.services.extraction.questions import in_first_person


@pytest.mark.parametrize(
    ("question", "rewritten"),
    [
        ("Where does Alice live?", "Where do I live?"),
        ("What is Alice's job?", "What is my job?"),
        ("Where did Alice Smith move to?", "Where did I move to?"),
        ("Is Alice vegetarian?", "am I vegetarian?"),
        ("Tell me about alice", "Tell me about me"),
        ("Where does Bob live?", "Where does Bob live?"),  # not the user's name
        ("Where do I live?", "Where do I live?"),
    ],
)
def test_the_users_name_is_read_as_i(question: str, rewritten: str) -> None:
    assert in_first_person(question, ["Alice Smith", "alice"]) == rewritten


def test_without_names_the_question_is_unchanged() -> None:
    assert in_first_person("Where does Alice live?", []) == "Where does Alice live?"
