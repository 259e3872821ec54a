"""A question about the user, asked by name, read in the first person as their memories are written."""

from __future__ import annotations

import pytest

from mnemo.language import Language
from mnemo.language.en import english

ENGLISH: Language = english()  # the pack, through its interface
in_first_person = ENGLISH.in_first_person


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


@pytest.mark.parametrize(
    ("question", "names", "rewritten"),
    [
        # Only the names the question holds are compiled into the rewrites; matching ignores case as re does,
        # the dotless ı (which re takes for i) and the Kelvin sign (which it takes for k) included.
        ("Where does IŞIK live?", ["Işık"], "Where do I live?"),
        ("Where does Işık live?", ["IŞIK"], "Where do I live?"),
        ("What is \u212arista's job?", ["kRISTA"], "What is my job?"),
        ("Where does Alice live?", ["Alice", "Bob Stone", "Carol"], "Where do I live?"),
        ("Where did Stone move?", ["Alice", "Bob Stone"], "Where did I move?"),
    ],
)
def test_a_name_is_found_whatever_its_case(question: str, names: list[str], rewritten: str) -> None:
    assert in_first_person(question, names) == rewritten
