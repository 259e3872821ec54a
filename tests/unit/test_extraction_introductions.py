"""Self-introductions: the user's name, kept though the sentence has a single content word."""

from __future__ import annotations

import pytest

from mnemo.services.extraction.introductions import introduced_name, introduction


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("I'm Alice.", "Alice"),
        ("Hi! I'm Alice", "Alice"),
        ("hey, I am Bob Marley", "Bob Marley"),
        ("My name is Chloé.", "Chloé"),
        ("Call me Al", "Al"),
        ("I’m Dan, nice to meet you!", "Dan"),
    ],
)
def test_an_introduction_gives_the_name(sentence: str, name: str) -> None:
    assert introduced_name(sentence) == name


@pytest.mark.parametrize(
    "sentence",
    ["I'm fine.", "I'm Back!", "I'm vegan", "I'm Alice and I live in Porto.", "I'm tired", "My name is long"],
)
def test_a_sentence_that_introduces_nobody_gives_no_name(sentence: str) -> None:
    assert introduced_name(sentence) is None


def test_the_memory_of_an_introduction() -> None:
    assert introduction("Alice") == "Name is Alice"
