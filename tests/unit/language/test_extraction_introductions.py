"""Self-introductions: the user's name, kept though the sentence has a single content word."""

from __future__ import annotations

import pytest

from mnemo.language.en.extraction.introductions import (
    introduced_name,
    introduction,
    introduction_end,
    introduction_of,
    is_greeting,
)


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("I'm Alice.", "Alice"),
        ("Hi! I'm Alice", "Alice"),
        ("hey, I am Bob Marley", "Bob Marley"),
        ("My name is Chloé.", "Chloé"),
        ("Call me Al", "Al"),
        ("I’m Dan, nice to meet you!", "Dan"),
        ("hi im ines", "Ines"),  # lower case after a greeting, as people type
        ("hiii I'm Mei!", "Mei"),
    ],
)
def test_an_introduction_gives_the_name(sentence: str, name: str) -> None:
    assert introduced_name(sentence) == name


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm fine.",
        "I'm Back!",
        "I'm vegan",
        "I'm Alice and I live in Porto.",
        "I'm tired",
        "My name is long",
        "im ines",  # lower case without a greeting: no name
        "hi im tired",
        "Rosa here",
    ],
)
def test_a_sentence_that_introduces_nobody_gives_no_name(sentence: str) -> None:
    assert introduced_name(sentence) is None


def test_the_memory_of_an_introduction() -> None:
    assert introduction("Alice") == "Name is Alice"


def test_a_name_followed_by_here_after_a_greeting() -> None:
    assert introduced_name("hi!! rosa here.") == "Rosa"
    assert introduced_name("rosa here.", greeted=True) == "Rosa"
    assert is_greeting("hi!!") and not is_greeting("hi, I'm Rosa")


def test_an_introduction_followed_by_more_is_split_unless_it_says_more_of_the_one_introduced() -> None:
    sentence = "hi im ines, on my break at 2am"
    end = introduction_end(sentence)
    assert end is not None and sentence[end:] == "on my break at 2am"
    assert introduction_of(sentence) == "Name is Ines"
    assert introduction_end("I'm Lucas, from Porto") is None
    assert introduction_of("I'm Lucas, from Porto") == "Name is Lucas, from Porto"
    assert introduction_of("I'm Alice and I live in Porto.") is None
