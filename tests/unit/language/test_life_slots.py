from __future__ import annotations

import pytest

from mnemo.language import Language
from mnemo.language.en import english
from mnemo.language.en.life_slots import share_a_slot

ENGLISH: Language = english()  # the pack, through its interface
slots = ENGLISH.slots


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've been renting a two-bedroom flat in Headingley", {"home"}),
        ("I play handball on Wednesday evenings", {"sport"}),
        ("The role is fully remote, the spare room is my office", {"work", "workplace"}),
        ("iker and i split in september", {"partner"}),
        ("we adopted a retired racing greyhound", {"pets"}),
        ("I sold the car in March", {"car"}),
        ("been on day shifts since april", {"shifts"}),
        ("I haven't smoked since New Year", {"smoking"}),
        ("My manager Niamh took over from Fiona", {"manager"}),
        ("i went fully vegan in May", {"diet"}),
        ("I love the colour blue", set()),
    ],
)
def test_the_parts_of_a_life_a_statement_speaks_of(text: str, expected: set[str]) -> None:
    assert slots(text) == expected


def test_two_statements_share_a_slot_in_different_words() -> None:
    assert share_a_slot("I play handball with an old boys team", "I want to start swimming instead")
    assert share_a_slot("I rent a flat in Headingley", "I completed on a house in Roundhay")
    assert not share_a_slot("I play handball", "I rent a flat in Headingley")
