"""The English reading of what a memory plainly states of a profile property (mnemo.language.en.profile_words)."""

from __future__ import annotations

import pytest

from mnemo.language import ProfileValues
from mnemo.language.en.profile_words import EnglishProfileWords

WORDS: ProfileValues = EnglishProfileWords()


def test_a_property_is_said_as_its_name_in_words_and_its_description_without_the_user() -> None:
    assert (
        WORDS.property_text("isVegetarian", "Whether the user is vegetarian") == "is vegetarian: Whether is vegetarian"
    )
    assert WORDS.property_text("home_city", "The user's city") == "home city: city"
    assert WORDS.property_text("age", "  ") == "age"


@pytest.mark.parametrize(
    ("text", "speaks", "truth"),
    [
        ("I am vegetarian", True, True),
        ("Vegetarians are my people", True, True),  # a form of the key word
        ("I'm not vegetarian", True, False),
        ("I am a non-vegetarian", True, False),
        ("I used to be vegetarian", True, None),  # the past: unsure
        ("Am I vegetarian?", True, None),  # a question: unsure
        ("I don't eat meat", False, None),  # no inference
    ],
)
def test_a_boolean_is_what_the_memory_plainly_states(text: str, speaks: bool, truth: bool | None) -> None:
    assert WORDS.speaks_of("is_vegetarian", text) is speaks
    assert WORDS.stated_truth("is_vegetarian", text) is truth


def test_a_name_of_filler_words_alone_speaks_of_nothing() -> None:
    assert not WORDS.speaks_of("is_the", "it is the one")
    assert WORDS.stated_truth("is_the", "it is the one") is None


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Is 34 years old", "34"),
        ("I'm 1.82 metres tall", None),  # "metres" is no word of "age" nor of its description
        ("Is 34 years old and has 2 kids", None),  # two numbers: which?
        ("Turned 40 in March", None),  # not next to the property's words
        ("Is thirty-four years old", None),  # numbers in words are not read
    ],
)
def test_a_number_is_the_one_in_digits_next_to_the_property_words(text: str, number: str | None) -> None:
    assert WORDS.stated_number("age", "The user's age in years", text) == number


def test_the_words_alone_read_no_kind_of_value() -> None:
    assert WORDS.value_kind("city", "The city where the user lives") is None
    assert WORDS.stated_value("home_city", "I live in Lisbon") is None
