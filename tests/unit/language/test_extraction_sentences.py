"""The extractor's sentences: split after . ! ? ; and line breaks, each with its span in the message."""

from __future__ import annotations

import pytest

from mnemo.language import Language, Sentence
from mnemo.language.en import english

ENGLISH: Language = english()  # the pack, through its interface
sentences = ENGLISH.sentences


def test_each_sentence_comes_with_where_it_is_in_the_message() -> None:
    content = "Hi! I love pizza.  What about you?\nMy sister lives in Lisbon; she is a nurse"

    found = sentences(content)

    assert [s.text for s in found] == [
        "Hi!",
        "I love pizza.",
        "What about you?",
        "My sister lives in Lisbon;",
        "she is a nurse",
    ]
    assert all(content[s.start : s.end] == s.text for s in found)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("I ran 3.5 km today.", ["I ran 3.5 km today."]),
        ("Dr. Smith is my doctor. He is kind.", ["Dr. Smith is my doctor.", "He is kind."]),
        ("I read J. R. R. Tolkien. Twice!", ["I read J. R. R. Tolkien.", "Twice!"]),
        ("Really?! Wow...", ["Really?!", "Wow..."]),
        ("", []),
        ("   \n  ", []),
    ],
)
def test_a_full_stop_inside_a_number_an_abbreviation_or_an_initial_does_not_end_the_sentence(
    content: str, expected: list[str]
) -> None:
    assert [s.text for s in sentences(content)] == expected


def test_a_line_break_ends_a_sentence() -> None:
    assert sentences("first line\nsecond line") == [Sentence("first line", 0, 10), Sentence("second line", 11, 22)]
